package app

import (
	"context"
	"fmt"
	"strings"

	"github.com/lender/disbursementd/config"
)

const configHelp = `Reads the configuration as serve would (the file, DISB_* variables, the
_FILE forms of secrets) and stops there: it connects to nothing and
creates nothing.
  config check     validate; exit 0 when serve would accept it, 2 with the one line that says why not
  config print     print the effective configuration as YAML, secrets as *** and the passwords of DSNs and URLs hidden`

var configSubcommands = map[string]string{
	"check": "Validates the configuration as serve would read it, without connecting to the store or\n" +
		"needing the files serve creates (the SQLite file, a generated key). Exit code 0 when it is\n" +
		"valid, 2 with one line naming the key and its variable when it is not.",
	"print": "Prints the effective configuration (file, environment, derived defaults) as YAML, with\n" +
		"secrets as *** and the passwords of DSNs and URLs hidden. Exit code 2 when it is not valid.",
}

func configCommand(_ context.Context, args []string, io IO) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		out, code := io.Stderr, ExitUsage
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			out, code = io.Stdout, ExitOK
		}
		fmt.Fprintf(out, "Usage: disbursementd config check|print [--config FILE]\n\n%s\n", configHelp)
		return code
	}
	sub, args := args[0], args[1:]
	help, ok := configSubcommands[sub]
	if !ok {
		fmt.Fprintf(io.Stderr, "disbursementd config: unknown subcommand %q (see disbursementd config --help)\n", sub)
		return ExitUsage
	}
	fs, cfgPath := newFlags("config "+sub, "[--config FILE]", help, io, true)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, code := loadConfig(*cfgPath, io)
	if cfg == nil {
		return code
	}
	if sub == "print" {
		fmt.Fprint(io.Stdout, cfg.RedactedYAML())
		return ExitOK
	}
	fmt.Fprintf(io.Stdout, "configuration ok (%s)\n", configSource(*cfgPath))
	return ExitOK
}

// configSource says which file the configuration came from.
func configSource(flagPath string) string {
	_, path := config.FilePath(flagPath)
	if path == "" {
		return "no file: defaults and environment"
	}
	return path
}

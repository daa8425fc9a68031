package app

import (
	"context"
	"fmt"

	"github.com/lender/disbursementd/config"
)

const configHelp = `Reads the configuration as serve would (the file, DISB_* variables, the
_FILE forms of secrets) and stops there: it connects to nothing and
creates nothing.
  config check     validate; exit 0 when serve would accept it, 2 with the one line that says why not
  config print     print the effective configuration as YAML, secrets as *** and the passwords of DSNs and URLs hidden`

var configCommand = subcommands{"config", "check|print [--config FILE]", configHelp, map[string]subcommand{
	"check": {"[--config FILE]", "Validates the configuration as serve would read it, without connecting to the store or\n" +
		"needing the files serve creates (the SQLite file, a generated key). Exit code 0 when it is\n" +
		"valid, 2 with one line naming the key and its variable when it is not."},
	"print": {"[--config FILE]", "Prints the effective configuration (file, environment, derived defaults) as YAML, with\n" +
		"secrets as *** and the passwords of DSNs and URLs hidden. Exit code 2 when it is not valid."},
}}

func configRun(_ context.Context, args []string, io IO) int {
	p, code, ok := configCommand.pick(args, io)
	if !ok {
		return code
	}
	if code, ok := parse(p.fs, p.args); !ok {
		return code
	}
	cfg, code := loadConfig(*p.cfgPath, io)
	if cfg == nil {
		return code
	}
	if p.name == "print" {
		fmt.Fprint(io.Stdout, cfg.RedactedYAML())
		return ExitOK
	}
	fmt.Fprintf(io.Stdout, "configuration ok (%s)\n", configSource(*p.cfgPath))
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

package app

import (
	"context"
	"flag"
	"fmt"
	"strings"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/config"
)

// subcommand is one subcommand of a command that has several (users add,
// config check, reports show): its usage arguments and its help.
type subcommand struct{ args, help string }

// subcommands is a command made of subcommands: its name, what its usage
// line says after the name, its help, and each subcommand by name.
type subcommands struct {
	name, usage, help string
	list              map[string]subcommand
}

// picked is the subcommand a command line names: its flag set (with
// --config), the --config path once parsed, and the arguments after its
// name, not yet parsed.
type picked struct {
	name    string
	spec    subcommand
	fs      *flag.FlagSet
	cfgPath *string
	args    []string
}

// pick reads the subcommand's name from args. With none (a flag first)
// it prints the command's usage, to standard output with ExitOK for
// --help and to standard error with ExitUsage otherwise; an unknown name
// is a usage error. Then ok is false and code is the exit code.
func (c subcommands) pick(args []string, io IO) (p picked, code int, ok bool) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		out, code := io.Stderr, ExitUsage
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help" || args[0] == "-help") {
			out, code = io.Stdout, ExitOK
		}
		fmt.Fprintf(out, "Usage: disbursementd %s %s\n\n%s\n", c.name, c.usage, c.help)
		return picked{}, code, false
	}
	name := args[0]
	sub, known := c.list[name]
	if !known {
		fmt.Fprintf(io.Stderr, "disbursementd %s: unknown subcommand %q (see disbursementd %s --help)\n", c.name, name, c.name)
		return picked{}, ExitUsage, false
	}
	fs, cfgPath := newFlags(c.name+" "+name, sub.args, sub.help, io, true)
	return picked{name: name, spec: sub, fs: fs, cfgPath: cfgPath, args: args[1:]}, ExitOK, true
}

// stores are the configured store and upload store, open.
type stores struct {
	cfg *config.Config
	st  *gormstore.Store
	up  Uploads
}

// Close closes the upload store, then the store.
func (s *stores) Close() {
	_ = s.up.Close()
	_ = s.st.Close()
}

// openStores opens the configured store, its schema ready, and the upload
// store, for a command that works on both (reconcile, reports purge); on
// failure it has said why, as who, and returns nil and the exit code.
func openStores(ctx context.Context, cfgPath string, io IO, who string) (*stores, int) {
	cfg, st, code := openConfiguredStore(ctx, cfgPath, io, true)
	if st == nil {
		return nil, code
	}
	up, err := OpenUploads(ctx, cfg, sysclock.Clock{})
	if err != nil {
		_ = st.Close()
		fmt.Fprintln(io.Stderr, who+":", err)
		return nil, ExitFailure
	}
	return &stores{cfg: cfg, st: st, up: up}, ExitOK
}

package app

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os/signal"
	"strings"
	"syscall"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/config"
)

// Exit codes a script can rely on (README's "Exit codes"; exitCode maps
// an error to one).
const (
	ExitOK       = 0
	ExitFailure  = 1 // the command ran and failed (database down, ...)
	ExitUsage    = 2 // bad flags, arguments or configuration
	ExitExists   = 3 // the user or client exists already; a decision in conflict with the report's
	ExitNotFound = 3 // no such user, report, client or endpoint (the documented 3, as for "exists")
)

// IO are the streams a command uses.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

// command is one subcommand: its usage line, what it does, and its
// runner, made by newRunner, which declares the command's flags on fs.
type command struct {
	name, args, summary, help string
	newRunner                 func(fs *flag.FlagSet) runner
}

// runner runs a command once its flags are parsed, with the --config path
// given (or ""), and returns the exit code.
type runner func(ctx context.Context, cfgPath string, io IO) int

// commands lists every subcommand, in the order the overview shows them.
func commands() []command {
	return []command{
		{"serve", "[--config FILE]", "run the service (the default command)", serveHelp, serveRunner},
		{"users", "add|passwd|deactivate|activate|list ...", "manage the built-in login's users", usersHelp, nil},
		{"config", "check|print [--config FILE]", "validate, or print, the configuration", configHelp, nil},
		{"keygen", "--out DIR", "write a new RSA key pair (for a key rotation)", keygenHelp, keygenRunner},
		{"migrate", "[--config FILE]", "apply pending schema migrations", migrateHelp, migrateRunner},
		{"reconcile", "[--apply | --restore-quarantined NAME] [--config FILE]", "list (and with --apply clear) what a crash or a restore left", reconcileHelp, reconcileRunner},
		{"reports", "list|show|purge|accept|reject|decide ...", "look up stored reports (for support), decide them; purge those past retention.reports", reportsHelp, nil},
		{"backoffice", "add|list|remove ...", "manage the back-office clients of the decision API", backofficeHelp, nil},
		{"webhooks", "list|disable|enable|redeliver ...", "operate partners' webhook endpoints; send events again", webhooksHelp, nil},
		{"events", "purge [--dry-run]", "delete events past events.retention", eventsHelp, nil},
		{"probe", "[--config FILE]", "ask the running service's /readyz (a container's health check)", probeHelp, probeRunner},
		{"version", "", "print the version", "Prints the version and the VCS revision it was built from.", versionRunner},
	}
}

func overview() string {
	var b strings.Builder
	b.WriteString("disbursementd: the partner disbursement service.\n\nUsage:\n")
	for _, c := range commands() {
		fmt.Fprintf(&b, "  disbursementd %-10s %-36s %s\n", c.name, c.args, c.summary)
	}
	b.WriteString(`
Every command but version takes --config FILE (default: ./disbursementd.yaml if present)
(or $DISB_CONFIG) and reads DISB_<SECTION>_<KEY> environment variables;
"disbursementd COMMAND --help" tells more. Exit codes: 0 ok, 1 failure, 2 usage or configuration
error, 3 exists / not found / a decision in conflict (reconcile --restore-quarantined: no such file, or no
report names it).
`)
	return b.String()
}

// CLI runs the command line and returns the exit code.
func CLI(ctx context.Context, args []string, io IO) int {
	name := "serve"
	switch {
	case len(args) > 0 && (args[0] == "help" || args[0] == "-h" || args[0] == "--help" || args[0] == "-help"):
		if len(args) > 1 {
			return CLI(ctx, []string{args[1], "--help"}, io)
		}
		fmt.Fprint(io.Stdout, overview())
		return ExitOK
	case len(args) > 0 && !strings.HasPrefix(args[0], "-"):
		name, args = args[0], args[1:]
	}
	for _, c := range commands() {
		if c.name != name {
			continue
		}
		switch c.name {
		case "users":
			return users(ctx, args, io)
		case "config":
			return configRun(ctx, args, io)
		case "reports":
			return reports(ctx, args, io)
		case "backoffice":
			return backoffice(ctx, args, io)
		case "webhooks":
			return webhooksRun(ctx, args, io)
		case "events":
			return eventsRun(ctx, args, io)
		}
		fs, cfgPath := newFlags(c.name, c.args, c.help, io, c.name != "version")
		run := c.newRunner(fs)
		if code, ok := parse(fs, args); !ok {
			return code
		}
		return run(ctx, *cfgPath, io)
	}
	fmt.Fprintf(io.Stderr, "disbursementd: unknown command %q\n\n%s", name, overview())
	return ExitUsage
}

// newFlags returns a flag set whose --help prints the command's usage and
// help to standard output; with withConfig it takes --config.
func newFlags(name, args, help string, io IO, withConfig bool) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Stderr)
	cfg := new(string)
	if withConfig {
		cfg = fs.String("config", "", "configuration file (YAML); default ./disbursementd.yaml if present")
	}
	fs.Usage = func() {
		fs.SetOutput(io.Stdout)
		fmt.Fprintf(io.Stdout, "Usage: disbursementd %s %s\n\n%s\n", name, args, help)
		flags := 0
		fs.VisitAll(func(*flag.Flag) { flags++ })
		if flags > 0 {
			fmt.Fprint(io.Stdout, "\nFlags:\n")
			fs.PrintDefaults()
		}
		fs.SetOutput(io.Stderr)
	}
	return fs, cfg
}

func parse(fs *flag.FlagSet, args []string) (int, bool) {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return ExitOK, false
		}
		return ExitUsage, false
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(fs.Output(), "unexpected arguments: %v (see disbursementd %s --help)\n", fs.Args(), fs.Name())
		return ExitUsage, false
	}
	return 0, true
}

// oneArg parses p's flags and returns its one positional argument, which
// may stand before or after them: "" when there is none or more than one.
// When the flags do not parse it returns false and the exit code (the
// flag package has said why).
func oneArg(p picked) (string, int, bool) {
	args := p.args
	var arg string
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		arg, args = args[0], args[1:]
	}
	if err := p.fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return "", ExitOK, false
		}
		return "", ExitUsage, false
	}
	switch {
	case arg == "" && p.fs.NArg() == 1:
		arg = p.fs.Arg(0)
	case p.fs.NArg() > 0:
		arg = ""
	}
	return arg, ExitOK, true
}

func loadConfig(path string, io IO) (*config.Config, int) {
	cfg, err := config.Load(path)
	if err == nil {
		err = CheckConfig(cfg)
	}
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
		return nil, ExitUsage
	}
	return cfg, ExitOK
}

// openConfiguredStore loads the configuration and opens its store with its
// schema ready; on failure it has said why and returns the exit code.
func openConfiguredStore(ctx context.Context, cfgPath string, io IO, migrate bool) (*config.Config, *gormstore.Store, int) {
	cfg, code := loadConfig(cfgPath, io)
	if cfg == nil {
		return nil, nil, code
	}
	// A store that cannot be opened (a data path not usable, a server
	// refusing) is a failure of the run, as for serve, not of the
	// configuration, which loaded.
	st, err := OpenStore(cfg, sysclock.Clock{}, nil)
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
		return nil, nil, ExitFailure
	}
	if migrate {
		if err := PrepareSchema(ctx, cfg, st, NewLogger(cfg, io.Stderr)); err != nil {
			_ = st.Close()
			fmt.Fprintln(io.Stderr, "disbursementd:", err)
			return nil, nil, ExitFailure
		}
	}
	return cfg, st, ExitOK
}

const serveHelp = `Runs the service: the partner endpoints (the legacy /api/partner_api.php, and
/v1: /v1/token, /v1/reports, /v1/reports/validate, /v1/reports/{id}, /v1/events,
/v1/webhook_endpoints), the built-in login at /auth/login, /healthz, /readyz,
/metrics and /openapi.yaml; on http.metrics_addr's listener, the back office's
decision API (/admin/v1); and this replica's webhook delivery workers.
Stops on SIGINT or SIGTERM after in-flight reports finish (http.shutdown_grace).`

func serveRunner(*flag.FlagSet) runner {
	return func(ctx context.Context, cfgPath string, io IO) int {
		cfg, code := loadConfig(cfgPath, io)
		if cfg == nil {
			return code
		}
		ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
		defer stop()
		m := NewMain(cfg, io.Stderr)
		if err := m.Run(ctx); err != nil {
			m.Log.Error("start failed", "error", err.Error())
			return ExitFailure
		}
		err := m.Wait(ctx)
		m.Log.Info("shutting down", "grace", cfg.HTTP.ShutdownGrace.String())
		if cerr := m.Close(); cerr != nil {
			err = errors.Join(err, cerr)
		}
		if err != nil {
			m.Log.Error("stopped with error", "error", err.Error())
			return ExitFailure
		}
		return ExitOK
	}
}

const migrateHelp = `Applies the pending schema migrations and exits. Needed before serve when
store.auto_migrate is false; safe to run from several replicas at once (on
MySQL a named lock lets one migrate).`

func migrateRunner(*flag.FlagSet) runner {
	return func(ctx context.Context, cfgPath string, io IO) int {
		_, st, code := openConfiguredStore(ctx, cfgPath, io, false)
		if st == nil {
			return code
		}
		defer st.Close()
		applied, err := st.Migrate(ctx)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd migrate:", err)
			return ExitFailure
		}
		if len(applied) == 0 {
			fmt.Fprintln(io.Stdout, "schema up to date")
		} else {
			fmt.Fprintf(io.Stdout, "applied migrations %v\n", applied)
		}
		return ExitOK
	}
}

func versionRunner(*flag.FlagSet) runner {
	return func(_ context.Context, _ string, io IO) int {
		fmt.Fprintln(io.Stdout, "disbursementd", Version())
		return ExitOK
	}
}

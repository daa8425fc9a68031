package app

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"text/tabwriter"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/jwtkeys"
	"github.com/lender/disbursementd/adapters/passwords"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Exit codes a script can rely on.
const (
	ExitOK       = 0
	ExitFailure  = 1 // the command ran and failed (database down, ...)
	ExitUsage    = 2 // bad flags, arguments or configuration
	ExitConflict = 3 // the user exists already / does not exist
)

// IO are the streams a command uses.
type IO struct {
	Stdin          io.Reader
	Stdout, Stderr io.Writer
}

const usage = `disbursementd: the partner disbursement service.

Usage:
  disbursementd [serve] [--config FILE]          run the service (default)
  disbursementd users add --user U --nit N       add an active user; password on standard input
  disbursementd users deactivate --user U        refuse the user's logins and tokens
  disbursementd users activate --user U
  disbursementd users list
  disbursementd keygen --out DIR                 write a new RSA key pair (rotation)
  disbursementd migrate                          apply pending schema migrations
  disbursementd version

Every command takes --config FILE (default: ./disbursementd.yaml if present)
and reads DISB_<SECTION>_<KEY> environment variables. Exit codes: 0 ok,
1 failure, 2 usage or configuration error, 3 user exists / not found.
`

// CLI runs the command line and returns the exit code.
func CLI(ctx context.Context, args []string, io IO) int {
	cmd := "serve"
	if len(args) > 0 && !strings.HasPrefix(args[0], "-") {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "serve":
		return serve(ctx, args, io)
	case "users":
		return users(ctx, args, io)
	case "keygen":
		return keygen(args, io)
	case "migrate":
		return migrate(ctx, args, io)
	case "version":
		fmt.Fprintln(io.Stdout, "disbursementd", Version())
		return ExitOK
	case "help", "-h", "--help":
		fmt.Fprint(io.Stdout, usage)
		return ExitOK
	}
	fmt.Fprintf(io.Stderr, "disbursementd: unknown command %q\n\n%s", cmd, usage)
	return ExitUsage
}

func flags(name, help string, io IO) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Stderr)
	cfg := fs.String("config", "", "configuration file (YAML)")
	fs.Usage = func() {
		fmt.Fprintf(io.Stderr, "Usage: disbursementd %s\n\n", help)
		fs.PrintDefaults()
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
		fmt.Fprintf(fs.Output(), "unexpected arguments: %v\n", fs.Args())
		return ExitUsage, false
	}
	return 0, true
}

func loadConfig(path string, io IO) (*config.Config, int) {
	cfg, err := config.Load(path)
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
		return nil, ExitUsage
	}
	return cfg, ExitOK
}

// openConfiguredStore loads the configuration and opens its store; on
// failure it has said why and returns the exit code.
func openConfiguredStore(ctx context.Context, cfgPath string, io IO) (*config.Config, *gormstore.Store, int) {
	cfg, code := loadConfig(cfgPath, io)
	if cfg == nil {
		return nil, nil, code
	}
	st, err := OpenStore(ctx, cfg)
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
		return nil, nil, ExitUsage
	}
	return cfg, st, ExitOK
}

func serve(ctx context.Context, args []string, io IO) int {
	fs, cfgPath := flags("serve", "serve [--config FILE]", io)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	cfg, code := loadConfig(*cfgPath, io)
	if cfg == nil {
		return code
	}
	ctx, stop := signal.NotifyContext(ctx, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	m := NewMain(cfg, io.Stderr)
	if err := m.Run(ctx); err != nil {
		m.Log.Error("start failed", "error", err.Error())
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
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

func migrate(ctx context.Context, args []string, io IO) int {
	fs, cfgPath := flags("migrate", "migrate [--config FILE]", io)
	if code, ok := parse(fs, args); !ok {
		return code
	}
	_, st, code := openConfiguredStore(ctx, *cfgPath, io)
	if st == nil {
		return code
	}
	defer st.Close()
	applied, err := st.Migrate(ctx)
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd: migrate:", err)
		return ExitFailure
	}
	if len(applied) == 0 {
		fmt.Fprintln(io.Stdout, "schema up to date")
	} else {
		fmt.Fprintf(io.Stdout, "applied migrations %v\n", applied)
	}
	return ExitOK
}

func keygen(args []string, io IO) int {
	fs, _ := flags("keygen", "keygen --out DIR", io)
	out := fs.String("out", "", "directory for private.pem (0600) and public.pem")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if *out == "" {
		fmt.Fprintln(io.Stderr, "disbursementd keygen: --out DIR is required")
		return ExitUsage
	}
	priv := filepath.Join(*out, "private.pem")
	key, err := jwtkeys.GenerateKeyFiles(priv, filepath.Join(*out, "public.pem"))
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd keygen:", err)
		return ExitFailure
	}
	k, err := jwtkeys.New(key, nil, domain.DefaultTokenPolicy(), ports.SystemClock{})
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd keygen:", err)
		return ExitFailure
	}
	fmt.Fprintf(io.Stdout, "wrote %s and %s (kid %s)\n", priv, filepath.Join(*out, "public.pem"), k.KeyID())
	return ExitOK
}

func users(ctx context.Context, args []string, io IO) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		fmt.Fprint(io.Stderr, "Usage: disbursementd users add|deactivate|activate|list [flags]\n")
		if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
			return ExitOK
		}
		return ExitUsage
	}
	sub, args := args[0], args[1:]
	var help string
	switch sub {
	case "add":
		help = "users add --user U --nit N   (password on standard input)"
	case "deactivate", "activate":
		help = "users " + sub + " --user U"
	case "list":
		help = "users list"
	default:
		fmt.Fprintf(io.Stderr, "disbursementd users: unknown subcommand %q\n", sub)
		return ExitUsage
	}
	fs, cfgPath := flags("users "+sub, help, io)
	user := fs.String("user", "", "user name")
	nit := fs.String("nit", "", "the partner's NIT (9-10 digits, optional -check digit)")
	if code, ok := parse(fs, args); !ok {
		return code
	}
	if sub != "list" && *user == "" {
		fmt.Fprintf(io.Stderr, "disbursementd users %s: --user is required\n", sub)
		return ExitUsage
	}
	if sub == "add" && *nit == "" {
		fmt.Fprintln(io.Stderr, "disbursementd users add: --nit is required")
		return ExitUsage
	}
	cfg, st, code := openConfiguredStore(ctx, *cfgPath, io)
	if st == nil {
		return code
	}
	defer st.Close()
	if err := PrepareSchema(ctx, cfg, st, NewLogger(cfg, io.Stderr)); err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
		return ExitFailure
	}
	hasher, err := passwords.New(cfg.Auth.BcryptCost)
	if err != nil {
		fmt.Fprintln(io.Stderr, "disbursementd:", err)
		return ExitFailure
	}
	svc := &ports.Users{Store: st, Hasher: hasher, Clock: ports.SystemClock{}}
	switch sub {
	case "add":
		pw, err := readPassword(io.Stdin)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd users add:", err)
			return ExitUsage
		}
		u, err := svc.Add(ctx, *user, *nit, pw)
		if err != nil {
			return userErr(io, "add", err)
		}
		fmt.Fprintf(io.Stdout, "added user %s (nit %s), active\n", u.Name, u.NIT)
	case "deactivate", "activate":
		if err := svc.SetActive(ctx, *user, sub == "activate"); err != nil {
			return userErr(io, sub, err)
		}
		fmt.Fprintf(io.Stdout, "user %s %sd\n", *user, sub)
	case "list":
		list, err := svc.List(ctx)
		if err != nil {
			return userErr(io, "list", err)
		}
		tw := tabwriter.NewWriter(io.Stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "USER\tNIT\tACTIVE\tCREATED")
		for _, u := range list {
			fmt.Fprintf(tw, "%s\t%s\t%v\t%s\n", u.Name, u.NIT, u.Active, u.CreatedAt.Format("2006-01-02 15:04:05Z"))
		}
		_ = tw.Flush()
	}
	return ExitOK
}

func userErr(io IO, sub string, err error) int {
	fmt.Fprintf(io.Stderr, "disbursementd users %s: %v\n", sub, err)
	switch {
	case errors.Is(err, domain.ErrConflict), errors.Is(err, domain.ErrNotFound):
		return ExitConflict
	case errors.Is(err, domain.ErrInvalidInput):
		return ExitUsage
	}
	return ExitFailure
}

// readPassword reads one line from standard input (a pipe or a terminal).
func readPassword(r io.Reader) (string, error) {
	if f, ok := r.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			fmt.Fprint(os.Stderr, "password: ")
		}
	}
	line, err := bufio.NewReader(r).ReadString('\n')
	if err != nil && !errors.Is(err, io.EOF) {
		return "", err
	}
	pw := strings.TrimRight(line, "\r\n")
	if pw == "" {
		return "", errors.New("no password on standard input")
	}
	return pw, nil
}

package app

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lender/disbursementd/adapters/jwtkeys"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/ports"
)

const keygenHelp = `Writes a new RSA-2048 key pair: DIR/private.pem (mode 0600) and
DIR/public.pem, and prints the new key's kid. DIR is created 0755 when it
is missing, so that the service's user can reach the key once private.pem
is its own (chown it when another user ran keygen). It never replaces an
existing private key. See the operator guide for a key rotation across
replicas.`

func keygenRunner(fs *flag.FlagSet) runner {
	out := fs.String("out", "", "directory for private.pem (0600) and public.pem")
	return func(_ context.Context, _ string, io IO) int {
		if *out == "" {
			fmt.Fprintln(io.Stderr, "disbursementd keygen: --out DIR is required")
			return ExitUsage
		}
		// The directory holds public.pem, which anyone may read, and
		// private.pem, which its own mode (0600) protects. It must let
		// the service's user reach the key after a chown of private.pem
		// alone: keygen is often run by root or by an operator, not by
		// that user (uid 65532 in the container).
		if err := os.MkdirAll(*out, 0o755); err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd keygen:", err)
			return ExitFailure
		}
		priv := filepath.Join(*out, "private.pem")
		key, err := jwtkeys.GenerateKeyFiles(priv, filepath.Join(*out, "public.pem"))
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd keygen:", err)
			return ExitFailure
		}
		k, err := jwtkeys.New(key, nil)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd keygen:", err)
			return ExitFailure
		}
		fmt.Fprintf(io.Stdout, "wrote %s and %s (kid %s)\n", priv, filepath.Join(*out, "public.pem"), k.KeyID())
		return ExitOK
	}
}

const reconcileHelp = `Looks for what a crash can leave behind, all of it older than the stale
bound (http.report_timeout + 5s): temporary files and unfinished uploads,
published files that no stored report names, pending claims, idempotency
records past their TTL, tombstones of removed files past idempotency.ttl;
and every row whose file is missing (reported only: a file cannot be made
again). Files and records younger than the stale bound are skipped: a
report may still be writing them. Without --apply it only lists what it
found and why; with --apply it removes it. serve runs the same sweep at
start and every uploads.sweep_interval. Safe beside running replicas: a
file is removed only once the database has recorded that no report can
claim it. Exit code 1 when a row's file is missing.`

func reconcileRunner(fs *flag.FlagSet) runner {
	apply := fs.Bool("apply", false, "remove what is found (default: only list it)")
	return func(ctx context.Context, cfgPath string, io IO) int {
		cfg, st, code := openConfiguredStore(ctx, cfgPath, io, true)
		if st == nil {
			return code
		}
		defer st.Close()
		up, err := OpenUploads(ctx, cfg)
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd reconcile:", err)
			return ExitFailure
		}
		defer up.Close()
		sweep, err := newSweep(cfg, st, up, sysclock.Clock{})
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd reconcile:", err)
			return ExitFailure
		}
		rep, err := sweep.Run(ctx, *apply, ports.EveryRow)
		verb := "would remove"
		if *apply {
			verb = "removed"
		}
		for _, f := range rep.Findings {
			if f.Kind == ports.FoundMissingFile {
				fmt.Fprintf(io.Stdout, "MISSING %s: %s\n", f.Name, f.Reason)
				continue
			}
			fmt.Fprintf(io.Stdout, "%s %s %s: %s\n", verb, f.Kind, f.Name, f.Reason)
		}
		for _, k := range ports.FindingKinds {
			fmt.Fprintf(io.Stdout, "%s: %d\n", k, rep.Counts[k])
		}
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd reconcile:", err)
			return ExitFailure
		}
		if rep.Counts[ports.FoundMissingFile] > 0 {
			return ExitFailure
		}
		return ExitOK
	}
}

package app

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"

	"github.com/lender/disbursementd/adapters/jwtkeys"
	"github.com/lender/disbursementd/adapters/sysclock"
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
		k, err := jwtkeys.New(key, nil, sysclock.Clock{})
		if err != nil {
			fmt.Fprintln(io.Stderr, "disbursementd keygen:", err)
			return ExitFailure
		}
		fmt.Fprintf(io.Stdout, "wrote %s and %s (kid %s)\n", priv, filepath.Join(*out, "public.pem"), k.KeyID())
		return ExitOK
	}
}

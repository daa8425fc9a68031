package app

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// TestConfigCheckAsksTheStore: config check refuses a MySQL DSN whose TLS
// does not verify the server (tls=preferred runs in plain text against a
// server without TLS) with the store's reason, on one line naming the key
// and its variable, and the setting that would accept it; with that
// setting (store.allow_insecure_tls) it passes. The rule is the store's
// (gormstore.Check): config check reaches it instead of restating it.
func TestConfigCheckAsksTheStore(t *testing.T) {
	for _, tt := range []struct {
		name, tls, allow string
		code             int
	}{
		{"tls=preferred", "preferred", "", ExitUsage},
		{"tls=skip-verify", "skip-verify", "false", ExitUsage},
		{"tls=preferred, allowed", "preferred", "true", ExitOK},
		{"tls=true", "true", "", ExitOK},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			t.Setenv("DISB_STORE_DRIVER", "mysql")
			t.Setenv("DISB_STORE_DSN", "disb:secret@tcp(db.internal:3306)/disb?tls="+tt.tls)
			if tt.allow != "" {
				t.Setenv("DISB_STORE_ALLOW_INSECURE_TLS", tt.allow)
			}
			var out, errOut bytes.Buffer
			code := CLI(context.Background(), []string{"config", "check"}, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			if code != tt.code {
				t.Fatalf("config check: exit %d, want %d\n%s%s", code, tt.code, out.String(), errOut.String())
			}
			if tt.code == ExitOK {
				return
			}
			msg := errOut.String()
			for _, want := range []string{"store.dsn (DISB_STORE_DSN)", "tls=" + tt.tls, "store.allow_insecure_tls"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the refusal does not say %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "secret") || strings.Count(strings.TrimSpace(msg), "\n") > 0 {
				t.Errorf("the refusal shows the password or takes more than one line:\n%s", msg)
			}
		})
	}
}

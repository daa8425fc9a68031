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

// TestConfigCheckAsksTheAdapters: the rules an adapter or a use case
// holds are refused by config check in their words, on one line naming
// the setting and its variable (and the setting it is weighed against):
// the store's lock wait on MySQL (gormstore.Check), the bytes in flight
// against the largest body (httpapi.CheckBytesInFlight) and the reports'
// retention against idempotency.ttl (ports.CheckRetention). The
// configuration no longer restates them; the service starts only past
// this check.
func TestConfigCheckAsksTheAdapters(t *testing.T) {
	mysql := []string{"DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN=disb:secret@tcp(db.internal:3306)/disb"}
	for _, tt := range []struct {
		name string
		env  []string
		want []string
	}{
		{"lock wait", append(mysql, "DISB_STORE_LOCK_WAIT_TIMEOUT=500ms"),
			[]string{"store.lock_wait_timeout (DISB_STORE_LOCK_WAIT_TIMEOUT)", "500ms", "at least 1s"}},
		{"bytes in flight", []string{"DISB_HTTP_MAX_BODY_BYTES=32MiB", "DISB_HTTP_MAX_BYTES_IN_FLIGHT=100MiB"},
			[]string{"http.max_bytes_in_flight (DISB_HTTP_MAX_BYTES_IN_FLIGHT)", "100MiB", "http.max_body_bytes 32MiB", "4 × the largest body"}},
		{"retention", []string{"DISB_RETENTION_REPORTS=1h"},
			[]string{"retention.reports (DISB_RETENTION_REPORTS)", "1h0m0s is below", "idempotency.ttl", "0 keeps reports forever"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			for _, e := range tt.env {
				k, v, _ := strings.Cut(e, "=")
				t.Setenv(k, v)
			}
			var out, errOut bytes.Buffer
			code := CLI(context.Background(), []string{"config", "check"}, IO{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errOut})
			if code != ExitUsage {
				t.Fatalf("config check: exit %d, want %d\n%s%s", code, ExitUsage, out.String(), errOut.String())
			}
			msg := errOut.String()
			for _, want := range tt.want {
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

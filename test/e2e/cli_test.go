package e2e

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// TestCLIUsersThenReport does what a new user does from the README: add a
// user with the CLI, start the service on the embedded default (in a
// fresh working directory), exchange a token and send a report.
func TestCLIUsersThenReport(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("DISB_AUTH_BCRYPT_COST", "10")
	t.Setenv("DISB_AUTH_USER_STALENESS", "0s")
	code, out, errs := testkit.RunCLI(t, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit)
	if code != app.ExitOK || !strings.Contains(out, "added user acme") {
		t.Fatalf("users add: %d %q %q", code, out, errs)
	}
	if code, _, errs := testkit.RunCLI(t, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); code != app.ExitExists {
		t.Fatalf("users add twice: %d %q", code, errs)
	}
	if code, _, _ := testkit.RunCLI(t, "short\n", "users", "add", "--user", "x", "--nit", testkit.Nit); code != app.ExitUsage {
		t.Fatalf("short password: %d", code)
	}
	if code, _, _ := testkit.RunCLI(t, "", "users", "add", "--user", "x"); code != app.ExitUsage {
		t.Fatalf("missing --nit: %d", code)
	}
	code, out, _ = testkit.RunCLI(t, "", "users", "list")
	if code != app.ExitOK || !strings.Contains(out, "acme") || !strings.Contains(out, "900123456-8") {
		t.Fatalf("users list: %d %q", code, out)
	}
	if code, _, _ := testkit.RunCLI(t, "", "users", "deactivate", "--user", "nobody"); code != app.ExitNotFound {
		t.Fatalf("deactivate unknown: %d", code)
	}
	// Every command and subcommand answers --help on standard output, and
	// the bare --help gives the overview of every command.
	for _, args := range [][]string{{"serve", "--help"}, {"users", "--help"}, {"users", "add", "--help"},
		{"users", "deactivate", "--help"}, {"users", "activate", "-h"}, {"users", "list", "--help"}, {"keygen", "--help"},
		{"migrate", "--help"}, {"reconcile", "--help"}, {"version", "--help"}, {"help", "reconcile"},
		{"users", "passwd", "--help"}, {"config", "--help"}, {"config", "check", "--help"}, {"config", "print", "-h"}} {
		if code, out, errs := testkit.RunCLI(t, "", args...); code != app.ExitOK || !strings.Contains(out, "Usage: disbursementd "+strings.TrimPrefix(strings.Join(args, " "), "help ")[:3]) {
			t.Errorf("%v: %d %q %q", args, code, out, errs)
		}
	}
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		code, out, _ := testkit.RunCLI(t, "", args...)
		for _, cmd := range []string{"serve", "users", "config", "keygen", "migrate", "reconcile", "version"} {
			if code != app.ExitOK || !strings.Contains(out, "disbursementd "+cmd) {
				t.Errorf("%v: %d; the overview lacks %s:\n%s", args, code, cmd, out)
			}
		}
	}
	if code, out, _ := testkit.RunCLI(t, "", "version"); code != app.ExitOK || !strings.HasPrefix(out, "disbursementd ") {
		t.Errorf("version: %d %q", code, out)
	}
	if code, _, _ := testkit.RunCLI(t, "", "bogus"); code != app.ExitUsage {
		t.Errorf("unknown command: %d", code)
	}
	if code, out, _ := testkit.RunCLI(t, "", "migrate"); code != app.ExitOK || !strings.Contains(out, "up to date") {
		t.Errorf("migrate: %d %q", code, out)
	}

	// The embedded default, on :0 instead of 8080.
	t.Setenv("DISB_HTTP_ADDR", "127.0.0.1:0")
	cfg, err := config.Load("")
	if err != nil {
		t.Fatal(err)
	}
	m := app.NewMain(cfg, &bytes.Buffer{})
	if err := m.Run(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	in := &testkit.Instance{Main: m, URL: "http://" + m.Addr}
	tok := in.Token(t, testkit.Partner, testkit.Password)
	if r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(time.Now(), "CR-CLI-1", fixture.PDF(4096)))); r.Status != 200 {
		t.Fatalf("report: %d %s", r.Status, r.Raw)
	}
	st, err := os.Stat(filepath.Join("data", "keys", "private.pem"))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("generated key: %v %v", st, err)
	}
	files, _ := filepath.Glob(filepath.Join("data", "uploads", "partner_CR-CLI-1_*.pdf"))
	if len(files) != 1 {
		t.Fatalf("uploads: %v", files)
	}
	// Deactivation takes effect on the existing token.
	if code, _, _ := testkit.RunCLI(t, "", "users", "deactivate", "--user", testkit.Partner); code != app.ExitOK {
		t.Fatal("deactivate failed")
	}
	if r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-CLI-2"))); r.Status != 401 {
		t.Fatalf("deactivated: %d %s", r.Status, r.Raw)
	}
}

func TestCLIKeygenAndBadConfig(t *testing.T) {
	dir := t.TempDir()
	code, out, errs := testkit.RunCLI(t, "", "keygen", "--out", dir)
	if code != app.ExitOK || !strings.Contains(out, "kid") {
		t.Fatalf("keygen: %d %q %q", code, out, errs)
	}
	if code, _, _ := testkit.RunCLI(t, "", "keygen", "--out", dir); code != app.ExitFailure {
		t.Fatalf("keygen over an existing key: %d, want refusal", code)
	}
	if err := os.Chmod(filepath.Join(dir, "private.pem"), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Chdir(t.TempDir())
	t.Setenv("DISB_AUTH_PRIVATE_KEY_FILE", filepath.Join(dir, "private.pem"))
	t.Setenv("DISB_HTTP_ADDR", "127.0.0.1:0")
	code, _, errs = testkit.RunCLI(t, "", "serve")
	if code != app.ExitFailure || !strings.Contains(errs, "auth.private_key_file") || !strings.Contains(errs, "chmod 600") {
		t.Fatalf("world-readable key: %d %q", code, errs)
	}
	t.Setenv("DISB_STORE_DRIVER", "mysql")
	t.Setenv("DISB_STORE_DSN", "not a dsn")
	code, _, errs = testkit.RunCLI(t, "", "serve")
	if code == app.ExitOK || !strings.Contains(errs, "store.dsn") {
		t.Fatalf("bad DSN: %d %q", code, errs)
	}
}

package browser

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/ports"
)

// The partner the page signs in as.
const (
	partner = "acme"
	secret  = "correct horse battery staple"
)

// startService runs the service on its embedded default (SQLite, local
// uploads, its own key pair) in a temp directory on a free loopback port,
// with the partner added as users add adds one, and returns its origin.
func startService(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	cfg := config.Defaults()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.HTTP.ShutdownGrace = 5 * time.Second
	cfg.Store.DSN = filepath.Join(dir, "disbursement.db")
	cfg.Uploads.Dir = filepath.Join(dir, "uploads")
	cfg.Auth.PrivateKeyFile = filepath.Join(dir, "keys", "private.pem")
	cfg.Auth.BcryptCost = 4                                     // bcrypt.MinCost: the test is about the browser, not hash strength
	if err := os.MkdirAll(cfg.Uploads.Dir, 0o750); err != nil { // the service refuses to create it
		t.Fatal(err)
	}
	m := app.NewMain(cfg, io.Discard)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v", err)
	}
	t.Cleanup(func() { _ = m.Close() })
	h, err := app.Hasher(cfg)
	if err != nil {
		t.Fatal(err)
	}
	users, err := ports.NewUsers(m.Store, h, sysclock.Clock{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := users.Add(context.Background(), partner, "900123456-8", secret); err != nil {
		t.Fatal(err)
	}
	return "http://" + m.Addr
}

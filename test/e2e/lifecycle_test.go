package e2e

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/test/testkit"
)

// TestNothingOutlivesClose: a service whose database is unreachable at
// start (so it retries the schema in the background) and whose sweep runs
// on an interval leaves no goroutine behind once Close returns.
func TestNothingOutlivesClose(t *testing.T) {
	f := mustFaultServer(t)
	f.proxy.Cut()
	runtime.GC()
	before := runtime.NumGoroutine()
	for range 3 {
		dir := t.TempDir()
		cfg := testkit.TestConfig(dir)
		f.viaProxy(cfg)
		cfg.Uploads.SweepInterval = 50 * time.Millisecond
		_ = os.MkdirAll(cfg.Uploads.Dir, 0o750)
		_ = os.MkdirAll(filepath.Dir(cfg.Auth.PrivateKeyFile), 0o700)
		if err := os.WriteFile(cfg.Auth.PrivateKeyFile, testkit.SharedKey(t), 0o600); err != nil {
			t.Fatal(err)
		}
		logs := &testkit.SyncBuffer{}
		m := app.NewMain(cfg, logs)
		if err := m.Run(context.Background()); err != nil {
			t.Fatalf("Run: %v\n%s", err, logs.String())
		}
		time.Sleep(300 * time.Millisecond) // the retry and the sweep are at work
		if !strings.Contains(logs.String(), "database not usable at start") {
			t.Fatalf("the schema retry did not start:\n%s", logs.String())
		}
		if f.proxy.Cuts() == 0 {
			t.Fatal("the proxy refused no connection: the service never tried the database")
		}
		if err := m.Close(); err != nil {
			t.Logf("Close: %v", err)
		}
	}
	// Goroutines end shortly after the calls that started them return
	// (the net/http connection readers, the driver's); allow them that.
	deadline := time.Now().Add(time.Minute) // a wait, not a speed
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before+2 {
		buf := make([]byte, 1<<20)
		n := runtime.Stack(buf, true)
		t.Fatalf("%d goroutines before three services, %d after their Close:\n%s", before, after, buf[:n])
	}
}

package testkit

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/jwtkeys"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/storetest"
)

// Instance is a running service on :0 with a temp data directory.
type Instance struct {
	*app.Main
	URL  string
	Dir  string
	Logs *SyncBuffer
}

// SyncBuffer collects the service's log lines.
type SyncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *SyncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *SyncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestConfig is the embedded default moved into dir and onto :0.
func TestConfig(dir string) *config.Config {
	cfg := config.Defaults()
	cfg.HTTP.Addr = "127.0.0.1:0"
	cfg.HTTP.ShutdownGrace = 5 * time.Second
	cfg.Store.DSN = filepath.Join(dir, "disbursement.db")
	cfg.Uploads.Dir = filepath.Join(dir, "uploads")
	cfg.Auth.PrivateKeyFile = filepath.Join(dir, "keys", "private.pem")
	cfg.Auth.BcryptCost = 4 // bcrypt.MinCost: the tests are about flows, not hash strength
	cfg.Log.Format = "json"
	// Deactivations are tested as immediate; the staleness bound has its
	// own test (TestDeactivationWithinStaleness).
	cfg.Auth.UserStaleness = 0
	// The tests look reports up as fast as the machine answers; the rate
	// of look-ups has its own tests (TestLookupRate, TestV1SQLite's
	// "lookups past the partner's rate").
	cfg.HTTP.LookupRatePerPartner = 100_000
	// Waits, not bounds: on a busy machine the tests' own clients, in this
	// process, can be kept from sending a body for longer than
	// http.body_rate_grace's default (408 body_too_slow), and a login from
	// a bcrypt slot for longer than auth.hash_wait's (503
	// temporarily_unavailable); neither is what such a test is about. The
	// body rate has its own tests (test/e2e/slowbody_test.go), which set
	// their grace; the hash wait its own (adapters/passwords).
	cfg.HTTP.BodyRateGrace = 30 * time.Second
	cfg.Auth.HashWait = time.Minute
	return cfg
}

// WithMySQL points an instance at a fresh database on the test server.
func WithMySQL(t testing.TB) func(*config.Config) {
	dsn := storetest.MustCreateDatabase(t)
	return func(c *config.Config) { c.Store.Driver, c.Store.DSN = "mysql", dsn }
}

var (
	sharedKeyOnce sync.Once
	sharedKeyPEM  []byte
)

// SharedKey is the run's one signing key (PEM), generated the first time
// a test asks: an instance uses it unless it is given its own (OwnKey).
func SharedKey(t testing.TB) []byte {
	sharedKeyOnce.Do(func() {
		dir, err := os.MkdirTemp("", "disb-key-")
		if err != nil {
			t.Fatal(err)
		}
		defer os.RemoveAll(dir)
		if _, err := jwtkeys.GenerateKeyFiles(filepath.Join(dir, "k.pem"), ""); err != nil {
			t.Fatal(err)
		}
		sharedKeyPEM, _ = os.ReadFile(filepath.Join(dir, "k.pem"))
	})
	return sharedKeyPEM
}

// MustStart runs Main; mutate adjusts the configuration first.
func MustStart(t testing.TB, mutate ...func(*config.Config)) *Instance {
	t.Helper()
	return MustStartMain(t, nil, mutate...)
}

// MustStartMain is mustStart with setup adjusting Main before Run.
func MustStartMain(t testing.TB, setup func(*app.Main), mutate ...func(*config.Config)) *Instance {
	t.Helper()
	dir := t.TempDir()
	cfg := TestConfig(dir)
	if err := os.MkdirAll(cfg.Uploads.Dir, 0o750); err != nil {
		t.Fatal(err)
	}
	// One generated key for the whole run: generating RSA-2048 for each
	// instance would cost most of the suite's time. Tests that need their
	// own key pass it through mutate.
	if err := os.MkdirAll(filepath.Dir(cfg.Auth.PrivateKeyFile), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(cfg.Auth.PrivateKeyFile, SharedKey(t), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, m := range mutate {
		m(cfg)
	}
	logs := &SyncBuffer{}
	m := app.NewMain(cfg, logs)
	if setup != nil {
		setup(m)
	}
	watch(t, func() string { return "http://" + m.Addr }, logs)
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run: %v\n%s", err, logs.String())
	}
	t.Cleanup(func() { _ = m.Close() })
	return &Instance{Main: m, URL: "http://" + m.Addr, Dir: dir, Logs: logs}
}

// AddUser creates an active user the way `users add` does.
func (i *Instance) AddUser(t testing.TB, name, nit, password string) {
	t.Helper()
	h, err := app.Hasher(i.Config)
	if err != nil {
		t.Fatal(err)
	}
	svc, err := ports.NewUsers(i.Store, h, sysclock.Clock{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Add(context.Background(), name, nit, password); err != nil {
		t.Fatal(err)
	}
}

// Reply is a decoded response.
type Reply struct {
	Status int
	Header http.Header
	Body   map[string]any
	Raw    []byte
}

// Call sends one request through the real listener.
func Call(t testing.TB, method, url string, header map[string]string, body []byte) Reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, url, err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := Reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if ct := resp.Header.Get("Content-Type"); len(raw) > 0 && (strings.HasPrefix(ct, "application/json") || strings.HasPrefix(ct, "application/problem+json")) {
		if err := json.Unmarshal(raw, &r.Body); err != nil {
			t.Fatalf("%s %s: body %q is not a JSON object: %v", method, url, raw, err)
		}
	}
	return r
}

// JSONCT is the header of a JSON body.
var JSONCT = map[string]string{"Content-Type": "application/json"}

// Token exchanges credentials through GET /api/partner_api.php.
func (i *Instance) Token(t testing.TB, user, password string) string {
	t.Helper()
	r := Call(t, "GET", i.URL+"/api/partner_api.php", JSONCT, MustJSON(map[string]string{"user": user, "password": password}))
	tok, _ := r.Body["access_token"].(string)
	if r.Status != 200 || tok == "" {
		t.Fatalf("token exchange for %s: %d %s", user, r.Status, r.Raw)
	}
	return tok
}

// Report posts a report body with a token.
func (i *Instance) Report(t testing.TB, tok string, body []byte, extra ...string) Reply {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json", "Authentication-Type": "bearer " + tok}
	for j := 0; j+1 < len(extra); j += 2 {
		h[extra[j]] = extra[j+1]
	}
	return Call(t, "POST", i.URL+"/api/partner_api.php", h, body)
}

// MustJSON is v as JSON; it panics on a value JSON cannot hold.
func MustJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// OwnKey makes an instance generate its own key pair (beside it:
// public.pem) instead of using the run's shared key.
func OwnKey(c *config.Config) { _ = os.Remove(c.Auth.PrivateKeyFile) }

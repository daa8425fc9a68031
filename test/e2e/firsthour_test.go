package e2e

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/testkit"
)

// The first hour of a new user (issue #12): what the README and guides
// promise, where the behaviour had to change.

// TestPortTakenCreatesNothing: when the address is taken, serve fails
// with one line naming http.addr before it creates data/, the database or
// a key pair.
func TestPortTakenCreatesNothing(t *testing.T) {
	t.Chdir(t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	t.Setenv("DISB_HTTP_ADDR", ln.Addr().String())
	code, out, errs := testkit.RunCLI(t, "", "serve")
	if code != app.ExitFailure || !strings.Contains(errs, "http.addr") || !strings.Contains(errs, "DISB_HTTP_ADDR") {
		t.Fatalf("serve on a taken port: %d %q %q", code, out, errs)
	}
	if n := strings.Count(strings.TrimSpace(errs), "\n"); n > 1 {
		t.Errorf("the error took %d lines (starting + the error, once):\n%s", n+1, errs)
	}
	if strings.Count(errs, "address already in use") != 1 {
		t.Errorf("the error is not said exactly once:\n%s", errs)
	}
	if _, err := os.Stat("data"); !os.IsNotExist(err) {
		t.Fatalf("data/ was created before the port was checked: %v", err)
	}
}

// TestUnusableDataDirIsNamed: a data path the service cannot use is named
// with its key and the reason, not as the driver's "out of memory (14)".
func TestUnusableDataDirIsNamed(t *testing.T) {
	t.Chdir(t.TempDir())
	if err := os.WriteFile("data", []byte("a file where the data directory should be"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("DISB_HTTP_ADDR", "127.0.0.1:0")
	code, _, errs := testkit.RunCLI(t, "", "serve")
	for _, want := range []string{"store.dsn", "DISB_STORE_DSN", filepath.Join("data", "disbursement.db"), "not a directory"} {
		if code != app.ExitFailure || !strings.Contains(errs, want) {
			t.Errorf("serve with data/ unusable: %d; the error lacks %q:\n%s", code, want, errs)
		}
	}
	if strings.Contains(errs, "out of memory") {
		t.Errorf("the driver's misleading message reached the user:\n%s", errs)
	}
}

// TestActivationTakesEffectAtOnce: after users activate, a new token works
// at once even with a status cache (auth.user_staleness 30 s); and the
// GET answers expires_in 86400, as every document says.
func TestActivationTakesEffectAtOnce(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) { c.Auth.UserStaleness = config.Defaults().Auth.UserStaleness })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	r := testkit.Exchange(t, in, testkit.Partner, testkit.Password, nil)
	if r.Status != 200 || r.Body["expires_in"] != float64(86400) {
		t.Fatalf("token: %d %s; want expires_in 86400", r.Status, r.Raw)
	}
	tok := r.Body["access_token"].(string)
	if err := in.Store.SetActive(t.Context(), testkit.Partner, false); err != nil {
		t.Fatal(err)
	}
	// This report makes the cache hold "inactive".
	if r := in.Report(t, tok, []byte(`{}`)); r.Status != 401 || r.Body["detail"] != "user_inactive" {
		t.Fatalf("a deactivated user's token: %d %s", r.Status, r.Raw)
	}
	if err := in.Store.SetActive(t.Context(), testkit.Partner, true); err != nil {
		t.Fatal(err)
	}
	fresh := in.Token(t, testkit.Partner, testkit.Password)
	if r := in.Report(t, fresh, []byte(`{}`)); r.Status == 401 {
		t.Fatalf("a token issued after activation was refused: %s", r.Raw)
	}
}

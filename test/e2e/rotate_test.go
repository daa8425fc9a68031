package e2e

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/testkit"
)

// rotatePath is the partner's own secret rotation (issue 36).
const rotatePath = "/v1/credentials/rotate"

// rotate posts to the rotation with the Authorization header auth.
func rotate(t *testing.T, in *testkit.Instance, auth string) testkit.Reply {
	t.Helper()
	h := map[string]string{}
	if auth != "" {
		h["Authorization"] = auth
	}
	return testkit.Call(t, http.MethodPost, in.URL+rotatePath, h, nil)
}

// tokenStatus is the status of POST /v1/token with user and pass.
func tokenStatus(t *testing.T, in *testkit.Instance, user, pass string) int {
	t.Helper()
	return testkit.TokenCall(t, in, map[string]string{"Authorization": testkit.BasicAuth(user, pass)}, testkit.FormCT, "grant_type=client_credentials").Status
}

// listStatus is the status of GET /v1/reports with tok.
func listStatus(t *testing.T, in *testkit.Instance, tok string) int {
	t.Helper()
	return testkit.Call(t, http.MethodGet, in.URL+"/v1/reports", testkit.V1Header(tok), nil).Status
}

// withClock gives Main the test's clock.
func withClock(c *fakes.Clock) func(*app.Main) { return func(m *app.Main) { m.Clock = c } }

// TestRotateSecret: through the real listener with the run's RSA key, a
// partner rotates its secret with its token; the new secret logs in, the
// old one and the token issued before keep working for the overlap and
// are refused after it; a query parameter is 400 and rotates nothing; a
// second rotation during the overlap is 409 naming its end; a missing or forged token is 401; the secret is in the
// answer once and never in the log.
func TestRotateSecret(t *testing.T) {
	t.Parallel()
	clock := fakes.NewClock(time.Now().UTC())
	in := testkit.MustStartMain(t, withClock(clock), func(c *config.Config) { c.Auth.RotationOverlap = 2 * time.Hour })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	old := testkit.V1Token(t, in, testkit.Partner, testkit.Password)
	clock.Add(time.Second) // a token of the rotation's own second is kept (domain.TokenPredates)

	if r := rotate(t, in, ""); r.Status != 401 || r.Body["code"] != "invalid_token" || r.Header.Get("WWW-Authenticate") == "" {
		t.Fatalf("rotate without a token: %d %s", r.Status, r.Raw)
	}
	if r := rotate(t, in, "Bearer forged.token.here"); r.Status != 401 {
		t.Fatalf("rotate with a forged token: %d %s", r.Status, r.Raw)
	}
	// The route has no query parameters: one is refused, naming it, and
	// rotates nothing.
	if r := testkit.Call(t, http.MethodPost, in.URL+rotatePath+"?user=other", map[string]string{"Authorization": "Bearer " + old}, nil); r.Status != 400 ||
		r.Body["code"] != "invalid_request" || !strings.Contains(string(r.Raw), "user") {
		t.Fatalf("rotate with a query parameter: %d %s, want 400 invalid_request naming it", r.Status, r.Raw)
	}
	r := rotate(t, in, "Bearer "+old)
	secret, _ := r.Body["secret"].(string)
	if r.Status != 200 || len(secret) < 40 || secret == testkit.Password || r.Header.Get("Cache-Control") != "no-store" {
		t.Fatalf("rotate: %d %s", r.Status, r.Raw)
	}
	until := clock.Now().Add(2 * time.Hour).Truncate(time.Second)
	if r.Body["previous_valid_until"] != until.Format(time.RFC3339) || r.Body["user"] != testkit.Partner {
		t.Fatalf("rotate's answer: %s, want the old secret until %s", r.Raw, until.Format(time.RFC3339))
	}
	if r := rotate(t, in, "Bearer "+old); r.Status != 409 || r.Body["code"] != "rotation_in_progress" || !strings.Contains(r.Body["detail"].(string), until.Format(time.RFC3339)) {
		t.Fatalf("a second rotation during the overlap: %d %s", r.Status, r.Raw)
	}

	clock.Add(time.Hour)
	fresh := testkit.V1Token(t, in, testkit.Partner, secret)
	if s := tokenStatus(t, in, testkit.Partner, testkit.Password); s != 200 {
		t.Fatalf("the old secret during the overlap: %d", s)
	}
	oldDuring := testkit.V1Token(t, in, testkit.Partner, testkit.Password)
	for name, tok := range map[string]string{"before the rotation": old, "of the new secret": fresh, "of the old secret in the overlap": oldDuring} {
		if s := listStatus(t, in, tok); s != 200 {
			t.Fatalf("the token %s during the overlap: %d", name, s)
		}
	}

	clock.Add(time.Hour + time.Second)
	if s := tokenStatus(t, in, testkit.Partner, testkit.Password); s != 401 {
		t.Fatalf("the old secret after the overlap: %d, want 401", s)
	}
	if s := listStatus(t, in, old); s != 401 {
		t.Fatalf("the token from before the rotation after the overlap: %d, want 401", s)
	}
	// A token of the old secret ends at the overlap's end by its exp,
	// which every replica reads within auth.leeway.
	clock.Add(time.Minute + time.Second)
	if s := listStatus(t, in, oldDuring); s != 401 {
		t.Fatalf("the token of the old secret issued in the overlap, after it: %d, want 401", s)
	}
	if s := listStatus(t, in, fresh); s != 200 {
		t.Fatalf("the new secret's token after the overlap: %d", s)
	}
	if tok := testkit.V1Token(t, in, testkit.Partner, secret); listStatus(t, in, tok) != 200 {
		t.Fatal("a token of the new secret after the overlap is refused")
	}
	users, err := in.Store.ListUsers(t.Context())
	if err != nil || len(users) != 1 || users[0].RotatedAt.IsZero() || !users[0].PreviousUntil.Truncate(time.Second).Equal(until) {
		t.Fatalf("the user's record after the rotation: %+v, %v", users, err)
	}
	logs := in.Logs.String()
	if strings.Contains(logs, secret) || !strings.Contains(logs, "secret rotated") {
		t.Fatalf("the log shows the secret, or no rotation:\n%s", logs)
	}
}

// TestRotateThrottled: refused rotations spend the login's address
// budget (auth's throttle), forged tokens and wrong current credentials
// alike; past it the answer is 429 with Retry-After.
func TestRotateThrottled(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) { c.Throttle.AddrFailures = 4 })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	for i := range 2 {
		if r := rotate(t, in, "Bearer forged"); r.Status != 401 {
			t.Fatalf("forged token %d: %d %s", i, r.Status, r.Raw)
		}
		if r := rotate(t, in, testkit.BasicAuth(testkit.Partner, "wrong password "+string(rune('a'+i)))); r.Status != 401 {
			t.Fatalf("wrong credentials %d: %d %s", i, r.Status, r.Raw)
		}
	}
	r := rotate(t, in, testkit.BasicAuth(testkit.Partner, testkit.Password))
	if r.Status != 429 || r.Header.Get("Retry-After") == "" {
		t.Fatalf("past the address's budget: %d %s", r.Status, r.Raw)
	}
}

// TestRotateAcrossReplicas: two instances on one SQLite file, one clock.
// The partner rotates through A with its current credentials; the new
// secret logs in through B at once, the old one too until the overlap
// ends, and not after.
func TestRotateAcrossReplicas(t *testing.T) {
	t.Parallel()
	clock := fakes.NewClock(time.Now().UTC())
	dir := t.TempDir()
	shared := func(c *config.Config) {
		c.Store.DSN = filepath.Join(dir, "shared.db")
		c.Auth.RotationOverlap = 30 * time.Minute
	}
	a := testkit.MustStartMain(t, withClock(clock), shared)
	b := testkit.MustStartMain(t, withClock(clock), shared)
	a.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	oldB := testkit.V1Token(t, b, testkit.Partner, testkit.Password)
	clock.Add(time.Second)

	r := rotate(t, a, testkit.BasicAuth(testkit.Partner, testkit.Password))
	secret, _ := r.Body["secret"].(string)
	if r.Status != 200 || secret == "" {
		t.Fatalf("rotate through A: %d %s", r.Status, r.Raw)
	}
	if r := rotate(t, b, testkit.BasicAuth(testkit.Partner, secret)); r.Status != 409 {
		t.Fatalf("a second rotation through B during the overlap: %d %s", r.Status, r.Raw)
	}
	newB := testkit.V1Token(t, b, testkit.Partner, secret)
	clock.Add(29 * time.Minute)
	if s := tokenStatus(t, b, testkit.Partner, testkit.Password); s != 200 {
		t.Fatalf("the old secret through B in the overlap: %d", s)
	}
	if s := listStatus(t, b, oldB); s != 200 {
		t.Fatalf("B's token from before the rotation, in the overlap: %d", s)
	}
	clock.Add(time.Minute)
	for _, in := range []*testkit.Instance{a, b} {
		if s := tokenStatus(t, in, testkit.Partner, testkit.Password); s != 401 {
			t.Fatalf("the old secret after the overlap: %d, want 401", s)
		}
		if s := tokenStatus(t, in, testkit.Partner, secret); s != 200 {
			t.Fatalf("the new secret after the overlap: %d", s)
		}
	}
	if listStatus(t, a, oldB) != 401 || listStatus(t, a, newB) != 200 {
		t.Fatal("after the overlap, A takes the token from before the rotation or refuses the new secret's")
	}
}

// TestRotateUsersList: the operator's users list shows when the partner
// rotated and until when its old secret works; users passwd ends it.
func TestRotateUsersList(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	t.Setenv("DISB_AUTH_BCRYPT_COST", "10")
	if code, out, errs := testkit.RunCLI(t, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); code != app.ExitOK {
		t.Fatalf("users add: %d %q %q", code, out, errs)
	}
	in := testkit.MustStart(t, func(c *config.Config) { c.Store.DSN = filepath.Join(dir, config.DefaultSQLitePath) })
	r := rotate(t, in, testkit.BasicAuth(testkit.Partner, testkit.Password))
	until, _ := r.Body["previous_valid_until"].(string)
	if r.Status != 200 || until == "" {
		t.Fatalf("rotate: %d %s", r.Status, r.Raw)
	}
	code, out, _ := testkit.RunCLI(t, "", "users", "list")
	shown := strings.Replace(strings.TrimSuffix(until, "Z"), "T", " ", 1) + "Z"
	if code != app.ExitOK || !strings.Contains(out, "ROTATED") || !strings.Contains(out, "OLD SECRET UNTIL") || !strings.Contains(out, shown) {
		t.Fatalf("users list after a rotation: %d %q, want the old secret's end %s", code, out, shown)
	}
	if code, _, errs := testkit.RunCLI(t, "another long password\n", "users", "passwd", "--user", testkit.Partner); code != app.ExitOK {
		t.Fatalf("users passwd: %d %q", code, errs)
	}
	if _, out, _ := testkit.RunCLI(t, "", "users", "list"); !strings.Contains(out, "ended (users passwd)") {
		t.Fatalf("users list after users passwd: %q", out)
	}
	if s := tokenStatus(t, in, testkit.Partner, testkit.Password); s != 401 {
		t.Fatalf("the rotated-out secret after users passwd: %d, want 401", s)
	}
}

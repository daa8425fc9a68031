package process

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

func TestUsersPasswdSQLite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	passwdAcrossReplicas(t, "DISB_STORE_DSN="+filepath.Join(dir, "disbursement.db"), "DISB_UPLOADS_DIR="+filepath.Join(dir, "uploads"))
}

func TestUsersPasswdMySQL(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	uploads := filepath.Join(t.TempDir(), "uploads")
	passwdAcrossReplicas(t, "DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+dsn, "DISB_UPLOADS_DIR="+uploads)
}

// passwdAcrossReplicas runs users passwd, through the real binary, beside
// two replicas on one store with a short auth.user_staleness: the old
// password is refused at once on both, the new one works, a token issued
// before the change is refused (401 password_changed) on both within the
// bound, and a token issued after it works on both.
func passwdAcrossReplicas(t *testing.T, storeEnv ...string) {
	const staleness = 2 * time.Second
	const newPassword = "a rotated partner password"
	keyFile := filepath.Join(t.TempDir(), "private.pem")
	if err := os.WriteFile(keyFile, testkit.SharedKey(t), 0o600); err != nil {
		t.Fatal(err)
	}
	env := testkit.BaseEnv(append(storeEnv, "DISB_AUTH_PRIVATE_KEY_FILE="+keyFile, "DISB_AUTH_USER_STALENESS="+staleness.String(),
		"DISB_UPLOADS_SWEEP_INTERVAL=0s")...)
	for _, v := range storeEnv {
		if d, ok := strings.CutPrefix(v, "DISB_UPLOADS_DIR="); ok {
			if err := os.MkdirAll(d, 0o750); err != nil {
				t.Fatal(err)
			}
		}
	}
	if out, err := testkit.CLI(t, t.TempDir(), env, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	replicas := []*testkit.Instance{}
	for range 2 {
		p := testkit.StartProcess(t, t.TempDir(), env)
		p.MustWaitReady(t)
		replicas = append(replicas, &testkit.Instance{URL: p.URL, Logs: p.Logs})
	}
	a, b := replicas[0], replicas[1]
	old := a.Token(t, testkit.Partner, testkit.Password)
	// Each replica has read (and cached) the user with the old password.
	for i, r := range replicas {
		if got := r.Report(t, old, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-PW-OLD-"+string(rune('A'+i))))); got.Status != 200 {
			t.Fatalf("old token before the change: %d %s", got.Status, got.Raw)
		}
	}
	// iat has whole seconds: a token of the change's own second is kept.
	time.Sleep(1100 * time.Millisecond)

	if out, err := testkit.CLI(t, t.TempDir(), env, "too short\n", "users", "passwd", "--user", testkit.Partner); exitCode(err) != 2 {
		t.Fatalf("short password: exit %d\n%s", exitCode(err), out)
	}
	if out, err := testkit.CLI(t, t.TempDir(), env, newPassword+"\n", "users", "passwd", "--user", "nobody"); exitCode(err) != 3 {
		t.Fatalf("unknown user: exit %d\n%s", exitCode(err), out)
	}
	out, err := testkit.CLI(t, t.TempDir(), env, newPassword+"\n", "users", "passwd", "--user", testkit.Partner)
	if err != nil || !strings.Contains(out, "password of acme changed") || strings.Contains(out, newPassword) {
		t.Fatalf("users passwd: %v\n%s", err, out)
	}

	for _, r := range replicas {
		got := testkit.Call(t, "GET", r.URL+"/api/partner_api.php", testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
		if got.Status != 400 || got.Body["error"] != "invalid_client" {
			t.Fatalf("the old password after passwd: %d %s", got.Status, got.Raw)
		}
	}
	fresh := b.Token(t, testkit.Partner, newPassword)
	for i, r := range replicas {
		if got := r.Report(t, fresh, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-PW-NEW-"+string(rune('A'+i))))); got.Status != 200 {
			t.Fatalf("a token issued after the change: %d %s", got.Status, got.Raw)
		}
	}
	// The old token: refused on each replica once its cached status is
	// older than the bound (the deadline leaves room for a slow machine).
	for i, r := range replicas {
		deadline := time.Now().Add(staleness + 10*time.Second)
		for n := 0; ; n++ {
			got := r.Report(t, old, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-PW-LATE-"+string(rune('A'+i))+"-"+string(rune('a'+n%26)))))
			if got.Status == 401 {
				if got.Body["detail"] != "password_changed" {
					t.Errorf("401 detail %v, want password_changed", got.Body["detail"])
				}
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("replica %d still takes the old token %s after the change: %d %s", i, staleness, got.Status, got.Raw)
			}
			time.Sleep(200 * time.Millisecond)
		}
	}
}

// exitCode is the exit status of a command cli ran (0 when err is nil).
func exitCode(err error) int {
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		return ee.ExitCode()
	}
	if err != nil {
		return -1
	}
	return 0
}

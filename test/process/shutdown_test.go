package process

import (
	"bytes"
	"context"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestGracefulShutdown runs the real binary, sends SIGTERM in the middle of
// a load, and checks that every request either got its full answer (and
// is stored) or was never accepted (and is not).
func TestGracefulShutdown(t *testing.T) { // not parallel: see loadTests
	dir := t.TempDir()
	bin := testkit.BinaryPath(t)
	env := append(os.Environ(), "DISB_AUTH_BCRYPT_COST=10", "DISB_HTTP_SHUTDOWN_GRACE=20s", "DISB_LOG_FORMAT=json")
	run := func(stdin string, args ...string) {
		cmd := exec.Command(bin, args...)
		cmd.Dir, cmd.Env, cmd.Stdin = dir, env, strings.NewReader(stdin)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	run(testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit)

	port := freePort(t)
	var logs bytes.Buffer
	srv := exec.Command(bin)
	srv.Dir, srv.Env, srv.Stdout, srv.Stderr = dir, append(env, "DISB_HTTP_ADDR=127.0.0.1:"+port), &logs, &logs
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	defer srv.Process.Kill()
	in := &testkit.Instance{URL: "http://127.0.0.1:" + port}
	testkit.WaitFor(t, "the server", 20*time.Second, func() bool {
		resp, err := http.Get(in.URL + "/healthz")
		if err == nil {
			resp.Body.Close()
		}
		return err == nil
	})
	tok := in.Token(t, testkit.Partner, testkit.Password)

	type outcome struct {
		credit string
		status int
		err    error
		body   []byte
	}
	stop := make(chan struct{})
	client := &http.Client{Timeout: 30 * time.Second}
	var early atomic.Int64 // answered in full while the load runs
	wait := testkit.StartWorkers(8, stop, func(w, i int) (outcome, bool) {
		credit := fmt.Sprintf("CR-TERM-%d-%d", w, i)
		req, _ := http.NewRequest("POST", in.URL+"/api/partner_api.php",
			bytes.NewReader(testkit.MustJSON(fixture.FullBody(time.Now(), credit, fixture.PDF(256<<10)))))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authentication-Type", "bearer "+tok)
		resp, err := client.Do(req)
		o := outcome{credit: credit, err: err}
		if err == nil {
			o.status = resp.StatusCode
			var b bytes.Buffer
			_, err = b.ReadFrom(resp.Body)
			resp.Body.Close()
			o.body, o.err = b.Bytes(), err
		}
		if o.err == nil && o.status == 200 {
			early.Add(1)
		}
		return o, err == nil // after an error the server is gone
	})
	// SIGTERM mid-load: after 1.5 s and a first answer, however slow the
	// machine.
	time.Sleep(1500 * time.Millisecond)
	testkit.WaitFor(t, "a report answered before SIGTERM", time.Minute, func() bool { return early.Load() > 0 })
	if err := srv.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	waited := make(chan error, 1)
	go func() { waited <- srv.Wait() }()
	select {
	case err := <-waited:
		if err != nil {
			t.Fatalf("exit after SIGTERM: %v\n%s", err, logs.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("no exit within the grace period")
	}
	close(stop)
	outcomes := wait()

	// Read the database the server left behind.
	names := map[string]bool{}
	for _, f := range mustGlob(t, filepath.Join(dir, "data", "uploads", "partner_*")) {
		names[filepath.Base(f)] = true
	}
	db := openSQLite(t, filepath.Join(dir, "data", "disbursement.db"))
	var answered, refused int
	re := regexp.MustCompile(`"file":"([^"]+)"`)
	for _, o := range outcomes {
		n := countCredit(t, db, o.credit)
		switch {
		case o.err == nil && o.status == 200:
			answered++
			m := re.FindSubmatch(o.body)
			if n != 1 || m == nil || !names[string(m[1])] {
				t.Errorf("%s answered 200 but stored %d rows / file %q", o.credit, n, m)
			}
		case o.err != nil:
			refused++
			if n != 0 {
				t.Errorf("%s: no answer (%v) but %d rows stored", o.credit, o.err, n)
			}
		default:
			t.Errorf("%s: status %d %s during shutdown", o.credit, o.status, o.body)
		}
	}
	if answered == 0 {
		t.Fatal("no request was answered before the shutdown")
	}
	t.Logf("%d answered in full, %d never accepted", answered, refused)
	if !strings.Contains(logs.String(), "shutting down") || !strings.Contains(logs.String(), `"msg":"stopped"`) {
		t.Errorf("shutdown not logged:\n%s", logs.String())
	}
}

func mustGlob(t *testing.T, pattern string) []string {
	t.Helper()
	m, err := filepath.Glob(pattern)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func freePort(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
}

func openSQLite(t *testing.T, path string) *gorm.DB {
	t.Helper()
	db, err := storetest.OpenDB(gormstore.SQLite, path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { storetest.CloseDB(db) })
	return db
}

func countCredit(t *testing.T, db *gorm.DB, credit string) int64 {
	t.Helper()
	var n int64
	if err := db.WithContext(context.Background()).Table(gormstore.StagingTable).Where("numero_credito = ?", credit).Count(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

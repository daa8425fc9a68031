package process

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestSIGKILLUnderLoad: the real binary is killed (SIGKILL) while 200
// reports with files are in flight, on SQLite and on MariaDB — batches
// mid-commit, files mid-write. After a restart, the service's own sweep
// (at start and every uploads.sweep_interval, once things are older than
// the stale bound) leaves no temp file, no file without its row and no
// pending record; every acknowledged report has exactly one row and its
// file; and every report that got no answer, sent again with its
// Idempotency-Key, is stored once.
func TestSIGKILLUnderLoad(t *testing.T) { // not parallel: see loadTests
	for _, driver := range []string{"sqlite", "mysql"} {
		t.Run(driver, func(t *testing.T) {
			dir := t.TempDir()
			env := testkit.BaseEnv("DISB_HTTP_REPORT_TIMEOUT=2s", "DISB_UPLOADS_SWEEP_INTERVAL=1s", "DISB_HTTP_MAX_IN_FLIGHT=512")
			dsn := filepath.Join(dir, "data", "disbursement.db")
			if driver == "mysql" {
				dsn = storetest.MustCreateDatabase(t)
				env = append(env, "DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+dsn, "DISB_STORE_LOCK_WAIT_TIMEOUT=1s")
			}
			if out, err := testkit.CLI(t, dir, env, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
				t.Fatalf("users add: %v\n%s", err, out)
			}
			p := testkit.StartProcess(t, dir, env)
			tok := (&testkit.Instance{URL: p.URL}).Token(t, testkit.Partner, testkit.Password)

			stop := make(chan struct{})
			done := make(chan []*sent)
			var early atomic.Int64 // acknowledged while the load runs
			go func() { done <- driveLoad(tok, func(int) string { return p.URL }, 200, 32<<10, stop, &early) }()
			// Mid-load: after 1.2 s and some reports acknowledged, however
			// slow the machine.
			time.Sleep(1200 * time.Millisecond)
			testkit.WaitFor(t, "reports acknowledged before the kill", time.Minute, func() bool { return early.Load() >= 10 })
			p.Kill()
			close(stop)
			all := <-done

			p = testkit.StartProcess(t, dir, env)
			p.MustWaitReady(t)
			client := &http.Client{Timeout: 30 * time.Second}
			acked, unanswered := 0, 0
			for _, s := range all {
				if s.err == nil && s.status == 200 {
					acked++
					continue
				}
				if s.err == nil {
					t.Errorf("%s: %d before the kill", s.credit, s.status)
					continue
				}
				unanswered++
				post(client, p.URL, tok, s)
				if s.err != nil || s.status != 200 {
					t.Errorf("%s sent again after the restart: %d %v", s.credit, s.status, s.err)
				}
			}
			t.Logf("%d reports: %d acknowledged before the kill, %d without an answer", len(all), acked, unanswered)
			if acked == 0 || unanswered == 0 {
				t.Fatal("the kill did not land mid-load: the test proved nothing")
			}

			// What the kill left: temp files, and files no answered report
			// names (a crash between a file and its row's commit).
			uploads := filepath.Join(dir, "data", "uploads")
			answered := map[string]bool{}
			for _, s := range all {
				answered[s.file] = true
			}
			left := 0
			entries, err := os.ReadDir(uploads)
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if !answered[e.Name()] {
					left++
				}
			}
			t.Logf("the kill left %d files or temp files to sweep", left)
			// The stale bound is 2 s + 5 s; the restarted service sweeps
			// every second.
			time.Sleep(9 * time.Second)
			out, err := testkit.CLI(t, dir, env, "", "reconcile")
			if err != nil {
				t.Fatalf("reconcile: %v\n%s", err, out)
			}
			for _, kind := range []string{"leftover", "orphan_file", "pending_claim", "missing_file"} {
				if !strings.Contains(out, kind+": 0\n") {
					t.Errorf("the service's sweep left work for reconcile:\n%s", out)
				}
			}
			db := testkit.MustSQL(t, driver, dsn)
			named := map[string]bool{}
			for _, s := range all {
				n, file := testkit.RowsFor(t, db, s.credit)
				if n != 1 || file != s.file {
					t.Errorf("%s: %d rows naming %q; answered %q", s.credit, n, file, s.file)
				}
				if _, err := os.Stat(filepath.Join(uploads, file)); err != nil {
					t.Errorf("%s: its file is missing: %v", s.credit, err)
				}
				named[file] = true
			}
			if entries, err = os.ReadDir(uploads); err != nil {
				t.Fatal(err)
			}
			for _, e := range entries {
				if !named[e.Name()] && e.Name() != ".quarantine" { // files no report names are kept there (contract §10)
					t.Errorf("%s left in the upload directory with no report", e.Name())
				}
			}
			if left > 0 && !strings.Contains(p.Logs.String(), "sweep cleared what a crash left") {
				t.Errorf("the kill left %d files, and the restarted service never logged a sweep that removed something:\n%.2000s", left, p.Logs.String())
			}
		})
	}
}

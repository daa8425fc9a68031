package process

import (
	"bytes"
	"database/sql"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/s3upload"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// fleet is several replicas of the real binary on one database and one
// upload store, each in its own working directory (no shared local
// state), all signing with one key.
type fleet struct {
	env      []string
	dirs     []string
	replicas []*testkit.Process
	db       *sql.DB
}

// fleetEnv is the configuration every replica shares: MariaDB, the S3
// bucket under a fresh prefix, the shared login throttle, one key, and a
// short report timeout so the stale bound (timeout + 5 s) comes soon.
func fleetEnv(t *testing.T, s3 s3upload.Config, dsn, keyFile string) []string {
	return testkit.BaseEnv(
		"DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+dsn,
		"DISB_UPLOADS_BACKEND=s3", "DISB_UPLOADS_S3_ENDPOINT="+s3.Endpoint, "DISB_UPLOADS_S3_BUCKET="+s3.Bucket,
		"DISB_UPLOADS_S3_PREFIX="+s3.Prefix, "DISB_UPLOADS_S3_REGION="+s3.Region, "DISB_UPLOADS_S3_PATH_STYLE=true",
		"DISB_UPLOADS_S3_ACCESS_KEY_ID="+s3.AccessKeyID, "DISB_UPLOADS_S3_SECRET_ACCESS_KEY="+s3.SecretAccessKey,
		"DISB_THROTTLE_BACKEND=database", "DISB_AUTH_PRIVATE_KEY_FILE="+keyFile,
		"DISB_HTTP_REPORT_TIMEOUT=3s", "DISB_STORE_LOCK_WAIT_TIMEOUT=1s", "DISB_UPLOADS_SWEEP_INTERVAL=0s", "DISB_AUTH_USER_STALENESS=0s",
	)
}

func startFleet(t *testing.T, n int) (*fleet, s3upload.Config) {
	t.Helper()
	dsn := storetest.MustCreateDatabase(t)
	s3 := storetest.S3Config(t)
	keyDir := t.TempDir()
	keyFile := filepath.Join(keyDir, "private.pem")
	if err := os.WriteFile(keyFile, testkit.SharedKey(t), 0o600); err != nil {
		t.Fatal(err)
	}
	f := &fleet{env: fleetEnv(t, s3, dsn, keyFile), db: testkit.MustSQL(t, "mysql", dsn)}
	if out, err := testkit.CLI(t, t.TempDir(), f.env, "", "migrate"); err != nil {
		t.Fatalf("migrate: %v\n%s", err, out)
	}
	if out, err := testkit.CLI(t, t.TempDir(), f.env, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	for range n {
		dir := t.TempDir()
		f.dirs = append(f.dirs, dir)
		f.replicas = append(f.replicas, testkit.StartProcess(t, dir, f.env))
	}
	for _, r := range f.replicas {
		r.MustWaitReady(t)
	}
	return f, s3
}

// sent is one report and what became of it.
type sent struct {
	credit, key string
	body        []byte
	status      int
	file        string
	err         error
}

var fileMember = regexp.MustCompile(`"file":"([^"]+)"`)

func post(client *http.Client, url, tok string, s *sent) {
	req, _ := http.NewRequest("POST", url+"/api/partner_api.php", bytes.NewReader(s.body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Authentication-Type", "bearer "+tok)
	req.Header.Set("Idempotency-Key", s.key)
	resp, err := client.Do(req)
	s.status, s.file, s.err = 0, "", err
	if err != nil {
		return
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	s.status, s.err = resp.StatusCode, err
	if m := fileMember.FindSubmatch(raw); m != nil {
		s.file = string(m[1])
	}
}

// driveLoad sends reports with files from workers spread over urls until
// stop closes, counting the acknowledged ones in acked as they come, and
// returns every report with its outcome.
func driveLoad(tok string, urls func(i int) string, workers, fileBytes int, stop <-chan struct{}, acked *atomic.Int64) []*sent {
	client := &http.Client{Timeout: 30 * time.Second}
	file := fixture.PDF(fileBytes)
	return testkit.StartWorkers(workers, stop, func(w, i int) (*sent, bool) {
		credit := fmt.Sprintf("CR-F%d-%d-%d", time.Now().UnixNano()%1e5, w, i)
		s := &sent{credit: credit, key: credit + "-v1", body: testkit.MustJSON(fixture.FullBody(time.Now(), credit, file))}
		post(client, urls(w+i), tok, s)
		if s.err == nil && s.status == 200 {
			acked.Add(1)
		}
		if s.err != nil {
			time.Sleep(20 * time.Millisecond) // a killed replica: go on with the next
		}
		return s, true
	})()
}

// TestFleetReplicaKilledMidLoad: three replicas on one MariaDB and one S3
// bucket take reports with files; one is SIGKILLed mid-load. Its reports
// in flight, retried with their Idempotency-Key on another replica, are
// stored once; after the stale bound, reconcile --apply leaves no object
// without a row and no pending record; every acknowledged report has
// exactly one row and its object; and the login throttle holds one
// budget across the replicas.
func TestFleetReplicaKilledMidLoad(t *testing.T) { // not parallel: see loadTests
	f, s3cfg := startFleet(t, 3)
	tok := (&testkit.Instance{URL: f.replicas[0].URL}).Token(t, testkit.Partner, testkit.Password)
	// Keys across replicas: a token from one is accepted by the others.
	for i, r := range f.replicas[1:] {
		in := &testkit.Instance{URL: r.URL}
		if got := in.Report(t, tok, []byte(`{}`)); got.Status == 401 {
			t.Fatalf("replica %d refused replica 0's token: %s", i+1, got.Raw)
		}
	}

	stop := make(chan struct{})
	killed := 1
	alive := []int{0, 2}
	var all []*sent
	var early atomic.Int64 // acknowledged while the load runs
	done := make(chan struct{})
	go func() {
		all = driveLoad(tok, func(i int) string { return f.replicas[i%3].URL }, 24, 64<<10, stop, &early)
		close(done)
	}()
	// The kill lands mid-load: after 1.5 s and a first share of the
	// reports acknowledged, however slow the machine; the load goes on
	// after it for 1 s and until the replicas still up have acknowledged
	// enough for the checks below to mean something.
	time.Sleep(1500 * time.Millisecond)
	testkit.WaitFor(t, "25 reports acknowledged before the kill", time.Minute, func() bool { return early.Load() >= 25 })
	f.replicas[killed].Kill()
	time.Sleep(1000 * time.Millisecond)
	testkit.WaitFor(t, "50 reports acknowledged", time.Minute, func() bool { return early.Load() >= 50 })
	close(stop)
	<-done

	// The killed replica's reports that got no answer are retried, with
	// the same body and key, on the replicas still up.
	client := &http.Client{Timeout: 30 * time.Second}
	retried := 0
	for i, s := range all {
		if s.err == nil && s.status == 200 {
			continue
		}
		if s.err == nil && s.status != 503 {
			t.Errorf("%s: %d from a live replica", s.credit, s.status)
			continue
		}
		retried++
		post(client, f.replicas[alive[i%2]].URL, tok, s)
		if s.err != nil || s.status != 200 {
			t.Errorf("retry of %s: %d %v", s.credit, s.status, s.err)
		}
	}
	acked := 0
	for _, s := range all {
		if s.status == 200 {
			acked++
		}
	}
	t.Logf("%d reports, %d retried after the kill, %d acknowledged", len(all), retried, acked)
	if retried == 0 || acked < 50 {
		t.Fatalf("the kill hit nothing in flight (%d retried, %d acknowledged): the test proved nothing", retried, acked)
	}

	// After the stale bound, the sweep leaves nothing half-done.
	time.Sleep(8500 * time.Millisecond)
	if out, err := testkit.CLI(t, f.dirs[0], f.env, "", "reconcile", "--apply"); err != nil {
		t.Fatalf("reconcile --apply: %v\n%s", err, out)
	}
	out, err := testkit.CLI(t, f.dirs[0], f.env, "", "reconcile")
	if err != nil {
		t.Fatalf("reconcile: %v\n%s", err, out)
	}
	for _, kind := range []string{"leftover", "orphan_file", "pending_claim", "missing_file"} {
		if !strings.Contains(out, kind+": 0\n") {
			t.Errorf("after reconcile --apply: %s", out)
		}
	}

	up, err := s3upload.Open(t.Context(), s3cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer up.Close()
	named := map[string]bool{}
	for _, s := range all {
		n, file := testkit.RowsFor(t, f.db, s.credit)
		if n != 1 || file != s.file {
			t.Errorf("%s: %d rows naming %q; answered %q", s.credit, n, file, s.file)
			continue
		}
		named[file] = true
		if ok, err := up.Exists(t.Context(), file); err != nil || !ok {
			t.Errorf("%s: object %s missing (%v)", s.credit, file, err)
		}
	}
	objects := 0
	if err := up.Walk(t.Context(), func(o ports.StoredObject) error {
		objects++
		if !named[o.Name] && !o.Temp {
			t.Errorf("object %s has no acknowledged report", o.Name)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	if objects != len(named) {
		t.Errorf("%d objects for %d acknowledged reports", objects, len(named))
	}

	// One throttle budget across the replicas: 10 failures spread over
	// the two live ones, and the 11th attempt is refused on either.
	for i := range 10 {
		if r := testkit.Exchange(t, &testkit.Instance{URL: f.replicas[alive[i%2]].URL}, "fleet-user", "wrong", nil); r.Status != 400 {
			t.Fatalf("failure %d: %d %s", i, r.Status, r.Raw)
		}
	}
	for _, i := range alive {
		if r := testkit.Exchange(t, &testkit.Instance{URL: f.replicas[i].URL}, "fleet-user", "wrong", nil); r.Status != 429 {
			t.Errorf("11th attempt on replica %d: %d %s; want 429 (one budget for the fleet)", i, r.Status, r.Raw)
		}
	}
}

// TestFleetKeyRotation follows the operator guide's key rotation across
// two replicas, restarting one at a time; at every step a token from
// either replica is accepted by both, and only the last step (after old
// tokens have expired) refuses the old key's tokens.
func TestFleetKeyRotation(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	keys := t.TempDir()
	for _, k := range []string{"old", "new"} {
		if out, err := testkit.CLI(t, keys, nil, "", "keygen", "--out", filepath.Join(keys, k)); err != nil {
			t.Fatalf("keygen: %v\n%s", err, out)
		}
	}
	key := func(which, file string) string { return filepath.Join(keys, which, file) }
	env := func(extra ...string) []string {
		return testkit.BaseEnv(append([]string{"DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN=" + dsn, "DISB_THROTTLE_BACKEND=database"}, extra...)...)
	}
	step := [][]string{
		{"DISB_AUTH_PRIVATE_KEY_FILE=" + key("old", "private.pem")},
		{"DISB_AUTH_PRIVATE_KEY_FILE=" + key("old", "private.pem"), "DISB_AUTH_PUBLIC_KEYS_FILE=" + key("new", "public.pem")},
		{"DISB_AUTH_PRIVATE_KEY_FILE=" + key("new", "private.pem"), "DISB_AUTH_PUBLIC_KEYS_FILE=" + key("old", "public.pem")},
		{"DISB_AUTH_PRIVATE_KEY_FILE=" + key("new", "private.pem")},
	}
	if out, err := testkit.CLI(t, t.TempDir(), env(step[0]...), testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
		t.Fatalf("users add: %v\n%s", err, out)
	}
	dirs := []string{t.TempDir(), t.TempDir()}
	replicas := []*testkit.Process{testkit.StartProcess(t, dirs[0], env(step[0]...)), testkit.StartProcess(t, dirs[1], env(step[0]...))}
	var oldTokens, newTokens []string
	signsNew := []bool{false, false}
	accepted := func(r *testkit.Process, tok string) bool {
		return (&testkit.Instance{URL: r.URL}).Report(t, tok, []byte(`{}`)).Status != 401
	}
	check := func(at string) {
		t.Helper()
		for i, r := range replicas {
			tok := (&testkit.Instance{URL: r.URL}).Token(t, testkit.Partner, testkit.Password)
			if signsNew[i] {
				newTokens = append(newTokens, tok)
			} else {
				oldTokens = append(oldTokens, tok)
			}
		}
		for i, r := range replicas {
			for _, tok := range append(append([]string{}, oldTokens...), newTokens...) {
				if !accepted(r, tok) {
					t.Errorf("%s: replica %d refuses a token of an earlier step", at, i)
				}
			}
		}
	}
	check("step 0, both sign old")
	for _, s := range []struct {
		at  string
		env []string
	}{{"step 1, trusting both, signing old", step[1]}, {"step 2, signing new, trusting old", step[2]}} {
		for i := range replicas {
			replicas[i].Kill()
			replicas[i] = testkit.StartProcess(t, dirs[i], env(s.env...))
			signsNew[i] = strings.Contains(s.at, "signing new")
			check(s.at + fmt.Sprintf(" (replica %d restarted)", i))
		}
	}
	if len(newTokens) == 0 {
		t.Fatal("no token was signed with the new key")
	}
	// Step 3, once the old key's tokens have expired: trust only the new key.
	for i := range replicas {
		replicas[i].Kill()
		replicas[i] = testkit.StartProcess(t, dirs[i], env(step[3]...))
	}
	for i, r := range replicas {
		for _, tok := range oldTokens {
			if accepted(r, tok) {
				t.Errorf("step 3: replica %d still accepts an old key's token", i)
			}
		}
		for _, tok := range newTokens {
			if !accepted(r, tok) {
				t.Errorf("step 3: replica %d refuses a new key's token", i)
			}
		}
	}
}

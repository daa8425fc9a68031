package e2e

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/faultproxy"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// faultServer is a private MariaDB with a database for one instance,
// reached through a proxy that the test can cut.
type faultServer struct {
	db    *storetest.MariaDB
	proxy *faultproxy.MySQL
	admin *gorm.DB
}

func mustFaultServer(t *testing.T) *faultServer {
	t.Helper()
	db := storetest.MustStartMariaDB(t)
	admin, err := gorm.Open(mysql.Open(db.DSN("")), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if err := admin.Exec("CREATE DATABASE disb CHARACTER SET utf8mb4").Error; err != nil {
		t.Fatal(err)
	}
	return &faultServer{db: db, proxy: faultproxy.StartMySQL(t, db.Addr()), admin: admin}
}

func (f *faultServer) viaProxy(c *config.Config) {
	c.Store.Driver, c.Store.DSN = "mysql", "root@tcp("+f.proxy.Addr()+")/disb?timeout=2s&readTimeout=5s&writeTimeout=5s"
	c.Store.MaxOpenConns = 16
}

func (f *faultServer) count(t *testing.T, where string, args ...any) int64 {
	t.Helper()
	var n int64
	if err := f.admin.Raw("SELECT COUNT(*) FROM disb.partner_disbursement_staging WHERE "+where, args...).Scan(&n).Error; err != nil {
		t.Fatal(err)
	}
	return n
}

// TestMySQLDatabaseLostDuringReport: the database goes away after the file
// is written and before the row is committed. The partner gets 503 with
// the contract's message, and no file is left behind.
func TestMySQLDatabaseLostDuringReport(t *testing.T) {
	t.Parallel()
	f := mustFaultServer(t)
	in := testkit.MustStart(t, f.viaProxy)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)

	// Hold the staging table so the insert waits, then cut the database.
	lock := f.admin.Session(&gorm.Session{})
	sqlDB, _ := lock.DB()
	conn, err := sqlDB.Conn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(context.Background(), "LOCK TABLES disb.partner_disbursement_staging WRITE"); err != nil {
		t.Fatal(err)
	}
	body := testkit.MustJSON(fixture.FullBody(time.Now(), "CR-LOST-1", fixture.PDF(32<<10)))
	done := make(chan testkit.Reply, 1)
	go func() { done <- in.Report(t, tok, body) }()
	uploads := in.Config.Uploads.Dir
	testkit.WaitFor(t, "the file to be written", time.Minute, func() bool {
		m, _ := filepath.Glob(filepath.Join(uploads, "partner_CR-LOST-1_*"))
		return len(m) == 1
	})
	f.proxy.Cut()
	if f.proxy.Cuts() == 0 {
		t.Fatal("the cut closed no connection: the test proves nothing")
	}
	r := <-done
	_, _ = conn.ExecContext(context.Background(), "UNLOCK TABLES")
	if r.Status != 503 || r.Body["status"] != "400" || r.Body["message"] != "No se pudo copiar los datos a tabla temporal" {
		t.Fatalf("database lost: %d %s", r.Status, r.Raw)
	}
	if m, _ := filepath.Glob(filepath.Join(uploads, "partner_CR-LOST-1_*")); len(m) != 0 {
		t.Fatalf("file left behind: %v", m)
	}
	if n := f.count(t, "numero_credito = ?", "CR-LOST-1"); n != 0 {
		t.Fatalf("%d rows after a 503", n)
	}
	// Readiness says so; once the database is back, the retry goes through.
	if rz := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil); rz.Status != 503 {
		t.Errorf("readyz while the database is away: %d %s", rz.Status, rz.Raw)
	}
	f.proxy.Restore()
	var retry testkit.Reply
	testkit.WaitFor(t, "the retry to be stored", time.Minute, func() bool {
		retry = in.Report(t, tok, body)
		return retry.Status == 200
	})
	if n := f.count(t, "numero_credito = ?", "CR-LOST-1"); n != 1 {
		t.Fatalf("%d rows after the retry, want 1", n)
	}
}

// TestUploadDirectoryLost: the upload directory is gone (or read-only):
// 503, no row, and /readyz says what is wrong.
func TestUploadDirectoryLost(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	dir := in.Config.Uploads.Dir
	if os.Geteuid() == 0 {
		// root writes through read-only modes: remove the directory instead.
		if err := os.Remove(dir); err != nil {
			t.Fatal(err)
		}
	} else {
		if err := os.Chmod(dir, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(dir, 0o750)
	}
	r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(time.Now(), "CR-NODIR-1", fixture.PDF(8<<10))))
	if r.Status != 503 || r.Body["status"] != "400" || r.Body["message"] != "No se pudo guardar el archivo adjunto" {
		t.Fatalf("upload dir lost: %d %s", r.Status, r.Raw)
	}
	if n := storetest.CountReports(t, in.Config.Store.Driver, in.Config.Store.DSN); n != 0 {
		t.Fatalf("%d rows after a failed file, want 0", n)
	}
	if rz := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil); rz.Status != 503 || rz.Body["checks"].(map[string]any)["uploads"] != "fail" {
		t.Fatalf("readyz: %d %s", rz.Status, rz.Raw)
	}
	// A report without a file does not need the directory.
	if r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-NODIR-2"))); r.Status != 200 {
		t.Fatalf("report without file: %d %s", r.Status, r.Raw)
	}
}

// TestMySQLRestartMidLoad: MariaDB restarts while partners send reports.
// Every report that got a 200 is in the table with its file; every file
// belongs to a row; the service reconnects by itself.
func TestMySQLRestartMidLoad(t *testing.T) {
	// Not parallel: it restarts MariaDB at set moments of a load, and a
	// neighbour's load would move what those moments catch.
	f := mustFaultServer(t)
	in := testkit.MustStart(t, func(c *config.Config) {
		c.Store.Driver, c.Store.DSN = "mysql", f.db.DSN("disb")+"?timeout=2s&readTimeout=5s&writeTimeout=5s"
	})
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)

	type result struct {
		credit string
		body   []byte
		r      testkit.Reply
	}
	stop := make(chan struct{})
	var early atomic.Int64 // acknowledged while the load runs
	wait := testkit.StartWorkers(8, stop, func(w, i int) (result, bool) {
		credit := fmt.Sprintf("CR-RST-%d-%d", w, i)
		body := testkit.MustJSON(fixture.FullBody(time.Now(), credit, fixture.PDF(4<<10)))
		r := in.Report(t, tok, body)
		if r.Status == 200 {
			early.Add(1)
		}
		return result{credit, body, r}, true
	})
	// The load is under way, however slow the machine, before the restart.
	testkit.WaitFor(t, "reports acknowledged before the restart", time.Minute, func() bool { return early.Load() >= 8 })
	// A global setting lives as long as the server process: if it is gone
	// afterwards, the server really restarted.
	if err := f.admin.Exec("SET GLOBAL max_connect_errors = 4242").Error; err != nil {
		t.Fatal(err)
	}
	time.Sleep(700 * time.Millisecond)
	f.db.Stop()
	time.Sleep(300 * time.Millisecond)
	f.db.Start()
	time.Sleep(1500 * time.Millisecond)
	close(stop)
	results := wait()
	var marker int64
	if err := f.admin.Raw("SELECT @@GLOBAL.max_connect_errors").Scan(&marker).Error; err != nil {
		t.Fatal(err)
	}
	if marker == 4242 {
		t.Fatal("the setting made before the restart is still there: MariaDB did not restart, the test proves nothing")
	}

	var ok, failed, unknown int
	for _, res := range results {
		files, _ := filepath.Glob(filepath.Join(in.Config.Uploads.Dir, "partner_"+res.credit+"_*"))
		switch {
		case res.r.Status == 200:
			ok++
			if n := f.count(t, "numero_credito = ? AND id = ?", res.credit, int64(res.r.Body["id"].(float64))); n != 1 || len(files) != 1 {
				t.Errorf("acknowledged report %s: %d rows, %d files", res.credit, n, len(files))
			}
		case res.r.Status == 503 && res.r.Body["code"] == "outcome_unknown":
			// The COMMIT went with the server: the row may have landed, so
			// the file stays for the sweep to judge (TestLateCommitKeepsFile*).
			// The partner sends the same report again, as told: it is then
			// stored exactly once, with its file.
			unknown++
			again := in.Report(t, tok, res.body)
			if again.Status != 200 {
				t.Errorf("report %s sent again after outcome_unknown: %d %s", res.credit, again.Status, again.Raw)
				continue
			}
			if n := f.count(t, "numero_credito = ?", res.credit); n != 1 {
				t.Errorf("report %s after outcome_unknown and a retry: %d rows, want 1", res.credit, n)
				continue
			}
			id, _ := again.Body["id"].(float64)
			row := storetest.ReportRow(t, in.Config.Store.Driver, in.Config.Store.DSN, int64(id))
			if _, err := os.Stat(filepath.Join(in.Config.Uploads.Dir, row["file_name"])); row["numero_credito"] != res.credit || row["file_name"] == "" || err != nil {
				t.Errorf("report %s after outcome_unknown and a retry: row %v %q, its file: %v", res.credit, row["numero_credito"], row["file_name"], err)
			}
		default:
			failed++
			if res.r.Status != 503 {
				t.Errorf("report %s: %d %s; a database restart must give 503", res.credit, res.r.Status, res.r.Raw)
			}
			if len(files) != 0 && f.count(t, "numero_credito = ?", res.credit) == 0 {
				t.Errorf("report %s: a file without a row after %d %s", res.credit, res.r.Status, res.r.Raw)
			}
		}
	}
	t.Logf("%d reports acknowledged, %d refused during the restart, %d of them outcome_unknown and sent again", ok, failed+unknown, unknown)
	if ok == 0 || failed+unknown == 0 {
		t.Logf("the restart did not overlap the load (ok=%d failed=%d); the check above is weaker", ok, failed+unknown)
	}
	if r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-RST-AFTER"))); r.Status != 200 {
		t.Fatalf("after the restart: %d %s", r.Status, r.Raw)
	}
}

// TestMySQLUnreachableAtStart: the service starts, says so in one log
// line, is not ready, and becomes ready when the database arrives.
func TestMySQLUnreachableAtStart(t *testing.T) {
	t.Parallel()
	f := mustFaultServer(t)
	f.proxy.Cut()
	in := testkit.MustStart(t, f.viaProxy)
	if !strings.Contains(in.Logs.String(), "database not usable at start") {
		t.Fatalf("no clear log line:\n%s", in.Logs.String())
	}
	if f.proxy.Cuts() == 0 {
		t.Fatal("the proxy refused no connection: the service never tried the database")
	}
	if rz := testkit.Call(t, "GET", in.URL+"/readyz", nil, nil); rz.Status != 503 {
		t.Fatalf("readyz without a database: %d", rz.Status)
	}
	if hz := testkit.Call(t, "GET", in.URL+"/healthz", nil, nil); hz.Status != 200 {
		t.Fatalf("healthz: %d", hz.Status)
	}
	f.proxy.Restore()
	testkit.WaitFor(t, "readiness", 20*time.Second, func() bool { return testkit.Call(t, "GET", in.URL+"/readyz", nil, nil).Status == 200 })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	if r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-LATE-1"))); r.Status != 200 {
		t.Fatalf("report once ready: %d %s", r.Status, r.Raw)
	}
}

// TestAutoMigrateOff: with store.auto_migrate false the service refuses an
// outdated schema and says to run migrate; after migrate it starts.
func TestAutoMigrateOff(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	cfg := testkit.TestConfig(dir)
	_ = os.MkdirAll(cfg.Uploads.Dir, 0o750)
	cfg.Store.AutoMigrate = false
	m := app.NewMain(cfg, &testkit.SyncBuffer{})
	err := m.Run(context.Background())
	if err == nil || !strings.Contains(err.Error(), "disbursementd migrate") {
		t.Fatalf("Run on an empty database with auto_migrate off: %v", err)
	}
	st, err := app.OpenStore(cfg, sysclock.Clock{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	_ = st.Close()
	m = app.NewMain(cfg, &testkit.SyncBuffer{})
	if err := m.Run(context.Background()); err != nil {
		t.Fatalf("Run after migrate: %v", err)
	}
	_ = m.Close()
}

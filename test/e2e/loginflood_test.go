package e2e

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestLoginFloodSparesReports (MariaDB, throttle in the database): 2,000
// refused logins from one address, 200 at a time, while 100 reports are
// sent. Every report is stored; the throttle ran on connections of its
// own (no connection carried both a throttle statement and a report's);
// and it spent at most two statements per refused attempt (contract §7,
// "Failed logins cost the store little"; the third round's finding 4).
// The throughput kept is measured by test/load -mode login-flood, not
// here: this test counts, it does not time.
func TestLoginFloodSparesReports(t *testing.T) {
	t.Parallel()
	in, stmts := startLoggedThrottle(t, nil)
	tok := in.Token(t, testkit.Partner, testkit.Password)

	const floodConc, floodEach, reports, reportConc = 200, 10, 100, 8
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: floodConc}}
	var throttled, other atomic.Int64
	var wg sync.WaitGroup
	for i := range floodConc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range floodEach {
				body := fmt.Sprintf(`{"user":"nobody-%d-%d","password":"guess"}`, i, j)
				req, _ := http.NewRequest("GET", in.URL+"/api/partner_api.php", strings.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("login %d/%d: %v", i, j, err)
					return
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				switch resp.StatusCode {
				case http.StatusTooManyRequests:
					throttled.Add(1)
				case http.StatusBadRequest:
					other.Add(1)
				default:
					t.Errorf("login %d/%d: %d, want 429 or 400 invalid_client", i, j, resp.StatusCode)
				}
			}
		}()
	}
	var stored atomic.Int64
	next := atomic.Int64{}
	for range reportConc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for n := next.Add(1); n <= reports; n = next.Add(1) {
				body := testkit.MustJSON(fixture.Minimal(time.Now(), fmt.Sprintf("CR-FLOOD-%d", n)))
				req, _ := http.NewRequest("POST", in.URL+"/api/partner_api.php", bytes.NewReader(body))
				req.Header.Set("Content-Type", "application/json")
				req.Header.Set("Authentication-Type", "bearer "+tok)
				resp, err := client.Do(req)
				if err != nil {
					t.Errorf("report %d: %v", n, err)
					continue
				}
				raw, _ := io.ReadAll(resp.Body)
				_ = resp.Body.Close()
				if resp.StatusCode != 200 {
					t.Errorf("report %d during the flood: %d %s", n, resp.StatusCode, raw)
					continue
				}
				stored.Add(1)
			}
		}()
	}
	wg.Wait()
	if stored.Load() != reports || countReports(t, in) != reports {
		t.Fatalf("%d reports answered 200, %d rows; want %d of each", stored.Load(), countReports(t, in), reports)
	}
	if throttled.Load() == 0 {
		t.Fatal("no login was throttled: the flood proved nothing")
	}

	// Statements that read or write rows (the migrations' DDL, run once
	// at start on one connection, names every table).
	dml := func(q string) bool {
		verb, _, _ := strings.Cut(strings.TrimSpace(q), " ")
		switch strings.ToUpper(verb) {
		case "SELECT", "INSERT", "UPDATE", "DELETE":
			return true
		}
		return false
	}
	isThrottle := func(q string) bool {
		return dml(q) && namesThrottleTable(q)
	}
	isReport := func(q string) bool {
		return dml(q) && (strings.Contains(q, "partner_disbursement_staging") || strings.Contains(q, "idempotency"))
	}
	var throttleStmts, throttleConns int
	for i, conn := range stmts.Connections() {
		var th, rep int
		for _, q := range conn {
			switch {
			case isThrottle(q):
				th++
			case isReport(q):
				rep++
			}
		}
		if th > 0 && rep > 0 {
			t.Errorf("connection %d carried %d throttle statements and %d of reports: the throttle used the reports' pool", i, th, rep)
		}
		if th > 0 {
			throttleConns++
			throttleStmts += len(conn) // its transactions' BEGIN and COMMIT included
		}
	}
	if throttleConns == 0 || throttleConns > config.Defaults().Throttle.DBConns {
		t.Errorf("the throttle used %d connections, want 1 to throttle.db_conns (%d)", throttleConns, config.Defaults().Throttle.DBConns)
	}
	// A refused attempt costs at most two statements; an attempt the
	// throttle let through (the budget's 30, and the token taken above)
	// pays for two locking reservations of a handful each, and a cancel.
	refused, passed := int(throttled.Load()), int(other.Load())+1
	if limit := 2*refused + 20*passed; throttleStmts > limit {
		t.Errorf("the throttle ran %d statements for %d refused and %d passed attempts, want at most %d", throttleStmts, refused, passed, limit)
	}
	t.Logf("%d refused, %d passed, %d throttle statements on %d connections", refused, passed, throttleStmts, throttleConns)
}

// TestSweepPrunesTheThrottle: the database throttle's rows whose window
// has ended are deleted by serve's sweep (Takes no longer prune).
func TestSweepPrunesTheThrottle(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.Throttle.Backend, c.Uploads.SweepInterval = "database", time.Second
	})
	for i := range 3 {
		if r := testkit.Exchange(t, in, fmt.Sprintf("nobody-%d", i), "guess", nil); r.Status != 400 {
			t.Fatalf("login %d: %d %s", i, r.Status, r.Raw)
		}
	}
	db, err := storetest.OpenDB(in.Config.Store.Driver, in.Config.Store.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer storetest.CloseDB(db)
	rows := func() (n int64) {
		var a, k int64
		if err := db.Raw("SELECT COUNT(*) FROM login_attempts").Scan(&a).Error; err != nil {
			t.Fatal(err)
		}
		if err := db.Raw("SELECT COUNT(*) FROM login_throttle_keys").Scan(&k).Error; err != nil {
			t.Fatal(err)
		}
		return a + k
	}
	if n := rows(); n != 10 { // the address: 3 attempts and its key; each name: 1 and its key
		t.Fatalf("%d throttle rows after 3 failed logins, want 10", n)
	}
	// Their windows end: what an hour passing looks like on the database's clock.
	hour := int64(time.Hour)
	if err := db.Exec("UPDATE login_attempts SET at_ns = at_ns - ?, expires_ns = expires_ns - ?", hour, hour).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Exec("UPDATE login_throttle_keys SET expires_ns = expires_ns - ?", hour).Error; err != nil {
		t.Fatal(err)
	}
	testkit.WaitFor(t, "the sweep to delete the expired throttle rows", 20*time.Second, func() bool { return rows() == 0 })
}

package faultproxy_test

import (
	"context"
	"database/sql"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/test/faultproxy"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMySQLHoldsTheNextCommit: the held COMMIT reaches the server only
// when released, after the client gave up waiting for it, and applies.
func TestMySQLHoldsTheNextCommit(t *testing.T) {
	dsn := storetest.MustCreateDatabase(t)
	direct, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer direct.Close()
	if _, err := direct.Exec("CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	p := faultproxy.StartMySQL(t, cfg.Addr)
	cfg.Addr, cfg.ReadTimeout = p.Addr(), 300*time.Millisecond // the client gives up on the COMMIT
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	tx, err := db.Begin()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.Exec("INSERT INTO t VALUES (1)"); err != nil {
		t.Fatal(err)
	}
	h := p.HoldNext("commit", 1500*time.Millisecond)
	if err := tx.Commit(); err == nil {
		t.Fatal("the COMMIT was answered while held")
	}
	<-h.Seen
	var n int
	if err := direct.QueryRow("SELECT COUNT(*) FROM t").Scan(&n); err != nil || n != 0 {
		t.Fatalf("%d rows (%v) while the COMMIT is held, want 0", n, err)
	}
	<-h.Released
	for deadline := time.Now().Add(10 * time.Second); n == 0 && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		_ = direct.QueryRow("SELECT COUNT(*) FROM t").Scan(&n)
	}
	if n != 1 || p.Held() != 1 {
		t.Fatalf("%d rows after the held COMMIT reached the server, %d held; want 1 and 1", n, p.Held())
	}
}

// TestHTTPFaultsAndCounts: each fault does what it says, and requests are
// counted by method, report objects apart.
func TestHTTPFaultsAndCounts(t *testing.T) {
	backend := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		_, _ = w.Write([]byte("ok"))
	}))
	defer backend.Close()
	p := faultproxy.StartHTTP(t, backend.URL)
	p.SetFaults(func(r *http.Request) faultproxy.Fault {
		switch {
		case strings.HasSuffix(r.URL.Path, "fail"):
			return faultproxy.Fault{Status: 503}
		case strings.HasSuffix(r.URL.Path, "cut"):
			return faultproxy.Fault{Cut: true}
		}
		return faultproxy.Fault{}
	})
	do := func(method, path string) (int, error) {
		req, _ := http.NewRequestWithContext(context.Background(), method, p.URL()+path, strings.NewReader("body"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return 0, err
		}
		defer resp.Body.Close()
		return resp.StatusCode, nil
	}
	if code, err := do("PUT", "/b/x/partner_CR-1_a.pdf"); err != nil || code != 200 {
		t.Fatalf("forwarded PUT = %d, %v", code, err)
	}
	if code, err := do("PUT", "/b/x/partner_fail"); err != nil || code != 503 {
		t.Fatalf("failed PUT = %d, %v; want 503", code, err)
	}
	if _, err := do("PUT", "/b/cut"); err == nil {
		t.Fatal("a cut request got an answer")
	}
	if code, _ := do("GET", "/b/x"); code != 200 {
		t.Fatalf("GET = %d", code)
	}
	if p.Requests("PUT") != 3 || p.Objects("PUT") != 2 || p.Requests("GET") != 1 {
		t.Fatalf("counts: %d PUT, %d on objects, %d GET; want 3, 2, 1", p.Requests("PUT"), p.Objects("PUT"), p.Requests("GET"))
	}
	p.Reset()
	if p.Requests("PUT") != 0 {
		t.Fatal("Reset kept the counts")
	}
}

// TestMySQLFatesAndCut: a COMMIT whose answer is lost is applied and the
// client gets an error; a dropped COMMIT is not applied; a cut refuses
// connections until Restore. The proxy counts each fault it made, and
// only those.
func TestMySQLFatesAndCut(t *testing.T) {
	direct, db, p := tableBehindProxy(t)
	rows := func(id int) int {
		var n int
		if err := direct.QueryRow("SELECT COUNT(*) FROM t WHERE id = ?", id).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	insert := func(id int) error {
		tx, err := db.Begin()
		if err != nil {
			return err
		}
		if _, err := tx.Exec("INSERT INTO t VALUES (?)", id); err != nil {
			return err
		}
		return tx.Commit()
	}
	if err := insert(1); err != nil || rows(1) != 1 || p.Failed() != 0 {
		t.Fatalf("no fault armed: %v, %d rows, %d failed", err, rows(1), p.Failed())
	}
	p.FailNext("commit", faultproxy.LoseAnswer)
	if err := insert(2); err == nil || rows(2) != 1 || p.Failed() != 1 {
		t.Fatalf("answer lost: %v, %d rows, %d failed; want an error, the row, 1", err, rows(2), p.Failed())
	}
	p.FailNext("commit", faultproxy.Drop)
	if err := insert(3); err == nil || rows(3) != 0 || p.Failed() != 2 {
		t.Fatalf("dropped: %v, %d rows, %d failed; want an error, no row, 2", err, rows(3), p.Failed())
	}
	if err := insert(4); err != nil || rows(4) != 1 || p.Failed() != 2 {
		t.Fatalf("after the faults: %v, %d rows, %d failed", err, rows(4), p.Failed())
	}
	p.Cut()
	if err := db.Ping(); err == nil || p.Cuts() == 0 {
		t.Fatalf("while cut: ping %v, %d cuts", err, p.Cuts())
	}
	p.Restore()
	if err := insert(5); err != nil || rows(5) != 1 {
		t.Fatalf("after Restore: %v, %d rows", err, rows(5))
	}
}

// tableBehindProxy makes a database of its own with a table t (id INT
// PRIMARY KEY), and returns a pool straight to it, one through a proxy,
// and the proxy; both pools close with the test.
func tableBehindProxy(t *testing.T) (direct, db *sql.DB, p *faultproxy.MySQL) {
	dsn := storetest.MustCreateDatabase(t)
	direct, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = direct.Close() })
	if _, err := direct.Exec("CREATE TABLE t (id INT PRIMARY KEY)"); err != nil {
		t.Fatal(err)
	}
	p = faultproxy.StartMySQL(t, mustAddr(t, dsn))
	if db, err = sql.Open("mysql", p.Route(t, dsn)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return direct, db, p
}

func mustAddr(t *testing.T, dsn string) string {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Addr
}

// TestMySQLAnswersItself: the fates the proxy answers itself reach the
// client as the server's own errors (1461, 1064), the server never sees
// the statement, and the connection goes on: the next statement on it is
// forwarded and applied.
func TestMySQLAnswersItself(t *testing.T) {
	t.Parallel()
	direct, db, p := tableBehindProxy(t)
	db.SetMaxOpenConns(1)
	for i, c := range []struct {
		fate faultproxy.Fate
		code uint16
	}{{faultproxy.TooManyStatements, 1461}, {faultproxy.Unparsed, 1064}} {
		p.FailNext("INSERT INTO t", c.fate)
		_, err := db.Exec("INSERT INTO t VALUES (?)", 10+i) // prepared: the PREPARE is answered
		var me *mysqldrv.MySQLError
		if !errors.As(err, &me) || me.Number != c.code || p.Failed() != int64(i+1) {
			t.Fatalf("fate %d: %v, %d failed; want MySQL error %d, %d", c.fate, err, p.Failed(), c.code, i+1)
		}
		if _, err := db.Exec("INSERT INTO t VALUES (?)", 20+i); err != nil {
			t.Fatalf("fate %d: the next statement on the connection: %v", c.fate, err)
		}
		var n int
		if err := direct.QueryRow("SELECT COUNT(*) FROM t WHERE id IN (?, ?)", 10+i, 20+i).Scan(&n); err != nil || n != 1 {
			t.Fatalf("fate %d: %d rows of the refused and the next (%v); want 1, the next's", c.fate, n, err)
		}
	}
}

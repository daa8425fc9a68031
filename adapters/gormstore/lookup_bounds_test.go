package gormstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/storetest"
)

// slowStatement runs for about 30 s on MariaDB unless something stops it.
const slowStatement = "SELECT SLEEP(30) /* slow look-up */"

// TestLookupStatementBoundMySQL: the look-up pool's sessions stop a
// statement at store.lookup_timeout on the server (max_statement_time:
// error 1969), however long the client would wait, and a look-up whose
// request is cancelled leaves nothing running on the server 10 s later
// (contract §10). The report pool's sessions carry no such bound.
func TestLookupStatementBoundMySQL(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	st := storetest.MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{LookupTimeout: 2 * time.Second})
	admin, err := storetest.OpenSQL(gormstore.MySQL, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	running := func() int {
		var n int
		if err := admin.QueryRow("SELECT COUNT(*) FROM information_schema.processlist WHERE info LIKE '%slow look-up%' AND info NOT LIKE '%processlist%'").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	gone := func(what string) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for running() > 0 {
			if time.Now().After(deadline) {
				t.Fatalf("%s: the statement still runs on the server 10 s later", what)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	t.Run("the server stops a statement at the bound", func(t *testing.T) {
		// No deadline on the client: only the session's bound ends it.
		var out int
		err := gormstore.LookupPool(st).QueryRowContext(context.Background(), slowStatement).Scan(&out)
		var me *mysqldrv.MySQLError
		if !errors.As(err, &me) || me.Number != 1969 {
			t.Fatalf("a statement past store.lookup_timeout: %v (result %d), want error 1969 (max_statement_time exceeded)", err, out)
		}
		gone("after the bound")
	})

	t.Run("a cancelled look-up leaves nothing running", func(t *testing.T) {
		ctx, cancel := gormstore.LookupContext(st, context.Background())
		done := make(chan error, 1)
		go func() {
			var out int
			done <- gormstore.LookupPool(st).QueryRowContext(ctx, slowStatement).Scan(&out)
		}()
		for running() == 0 {
			time.Sleep(20 * time.Millisecond)
		}
		cancel()
		if err := <-done; err == nil {
			t.Fatal("a cancelled look-up succeeded")
		}
		gone("after the cancel")
	})

	t.Run("reports' sessions are not bounded", func(t *testing.T) {
		var v string
		if err := gormstore.Pool(st).QueryRow("SELECT @@max_statement_time").Scan(&v); err != nil || strings.TrimRight(v, "0.") != "" {
			t.Fatalf("the reports' pool: max_statement_time %q, %v; want 0", v, err)
		}
		if err := gormstore.LookupPool(st).QueryRow("SELECT @@max_statement_time").Scan(&v); err != nil || !strings.HasPrefix(v, "2") {
			t.Fatalf("the look-up pool: max_statement_time %q, %v; want 2", v, err)
		}
	})
}

// TestLookupStatementBoundSQLite: SQLite stops a look-up's statement
// inside the engine when its context ends (the driver's interrupt), at
// the bound or on a cancel.
func TestLookupStatementBoundSQLite(t *testing.T) {
	t.Parallel()
	st := storetest.MustOpen(t, gormstore.SQLite, storetest.SQLitePath(t), gormstore.Options{LookupTimeout: 200 * time.Millisecond})
	// Counts to 10^10 unless interrupted: hours of work.
	slow := "WITH RECURSIVE c(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM c WHERE n < 10000000000) SELECT COUNT(*) FROM c"
	ctx, cancel := gormstore.LookupContext(st, context.Background())
	defer cancel()
	var n int64
	err := gormstore.LookupPool(st).QueryRowContext(ctx, slow).Scan(&n)
	if err == nil || !(errors.Is(err, context.DeadlineExceeded) || strings.Contains(err.Error(), "interrupt")) {
		t.Fatalf("a statement past the bound: %v (count %d), want it interrupted", err, n)
	}
	// The connection is usable again at once: the statement is over.
	if err := gormstore.LookupPool(st).QueryRowContext(context.Background(), "SELECT 1").Scan(&n); err != nil || n != 1 {
		t.Fatalf("after the interrupt: %d, %v", n, err)
	}
}

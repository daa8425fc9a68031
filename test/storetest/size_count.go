package storetest

import (
	"context"
	"database/sql"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ncruces/go-sqlite3"
	sqlitedrv "github.com/ncruces/go-sqlite3/driver"

	"github.com/lender/disbursementd/adapters/gormstore"
)

// entryCounter runs a look-up statement on a connection of its own and
// counts the index entries the database read for it.
//
// MariaDB: the session's Handler_read_* counters, zeroed by FLUSH STATUS
// before the statement and read after it on the same connection: every
// positioning on an index (read_key, read_first, read_last), every step
// along one (read_next, read_prev) and every row of a scan (read_rnd,
// read_rnd_next) counts one.
//
// SQLite: the statement with "counted(id) AND" put first in each WHERE,
// where counted is a function of this connection that counts its calls
// and is true. SQLite checks the WHERE terms that no index answers, in
// order, on every entry the loop visits, and this one comes before any
// other that could cut the check short, so the calls count the entries
// read; count checks first that the plan with counted() is the plan
// without it (same index, same range, no sort).
type entryCounter struct {
	driver string
	conn   *sql.Conn
	calls  atomic.Int64
}

func newEntryCounter(tb testing.TB, driver, dsn string) *entryCounter {
	tb.Helper()
	c := &entryCounter{driver: driver}
	var db *sql.DB
	var err error
	if driver == gormstore.MySQL {
		db, err = OpenSQL(driver, dsn)
	} else {
		db, err = sqlitedrv.Open(gormstore.SQLiteDSN(dsn, Options(gormstore.SQLite).BusyTimeout), func(conn *sqlite3.Conn) error {
			return conn.CreateFunction("counted", 1, sqlite3.DIRECTONLY, func(ctx sqlite3.Context, _ ...sqlite3.Value) {
				c.calls.Add(1)
				ctx.ResultBool(true)
			})
		})
	}
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = db.Close() })
	if c.conn, err = db.Conn(context.Background()); err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = c.conn.Close() })
	return c
}

// count runs query with args and returns the ids of its rows, the index
// entries read, and the plan (for the log).
func (c *entryCounter) count(tb testing.TB, query string, args []any) (ids []int64, entries int64, plan string) {
	tb.Helper()
	ctx := context.Background()
	if c.driver == gormstore.MySQL {
		if _, err := c.conn.ExecContext(ctx, "FLUSH STATUS"); err != nil {
			tb.Fatal(err)
		}
		ids = c.ids(tb, query, args)
		rows, err := c.conn.QueryContext(ctx, "SHOW SESSION STATUS LIKE 'Handler_read%'")
		if err != nil {
			tb.Fatal(err)
		}
		defer rows.Close()
		var counters []string
		for rows.Next() {
			var name string
			var n int64
			if err := rows.Scan(&name, &n); err != nil {
				tb.Fatal(err)
			}
			counters = append(counters, name+"="+strconv.FormatInt(n, 10))
			entries += n
		}
		if err := rows.Err(); err != nil {
			tb.Fatal(err)
		}
		return ids, entries, strings.Join(counters, " ")
	}
	if !strings.Contains(query, " WHERE ") {
		tb.Fatalf("no WHERE in %s", query)
	}
	counted := strings.ReplaceAll(query, " WHERE ", " WHERE counted(id) AND ")
	plan = c.plan(tb, query, args)
	if got := c.plan(tb, counted, args); got != plan {
		tb.Fatalf("counted() changes the plan:\n%s\nwithout it:\n%s", got, plan)
	}
	c.calls.Store(0)
	ids = c.ids(tb, counted, args)
	return ids, c.calls.Load(), plan
}

func (c *entryCounter) ids(tb testing.TB, query string, args []any) []int64 {
	tb.Helper()
	rows, err := c.conn.QueryContext(context.Background(), query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	cols, _ := rows.Columns()
	var ids []int64
	for rows.Next() {
		vals := make([]any, len(cols))
		vals[0] = new(int64)
		for i := 1; i < len(vals); i++ {
			vals[i] = new(any)
		}
		if err := rows.Scan(vals...); err != nil {
			tb.Fatal(err)
		}
		ids = append(ids, *vals[0].(*int64))
	}
	if err := rows.Err(); err != nil {
		tb.Fatal(err)
	}
	return ids
}

// plan is SQLite's EXPLAIN QUERY PLAN of query, one step a line.
func (c *entryCounter) plan(tb testing.TB, query string, args []any) string {
	tb.Helper()
	rows, err := c.conn.QueryContext(context.Background(), "EXPLAIN QUERY PLAN "+query, args...)
	if err != nil {
		tb.Fatal(err)
	}
	defer rows.Close()
	var steps []string
	for rows.Next() {
		var id, parent, unused int
		var detail string
		if err := rows.Scan(&id, &parent, &unused, &detail); err != nil {
			tb.Fatal(err)
		}
		steps = append(steps, detail)
	}
	return strings.Join(steps, "\n")
}

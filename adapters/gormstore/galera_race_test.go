package gormstore_test

import (
	"context"
	"database/sql"
	"errors"
	"sync/atomic"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/lender/disbursementd/adapters/gormstore"
)

// nodeSQL is a plain connection to a node of the test cluster (the DSNs
// of storetest.MustCreateGaleraDatabase read causally), closed at the
// test's end.
func nodeSQL(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// nodeFirst has node run q, once, before st's next COMMIT of a
// transaction run by inTx: another replica's write to the same rows,
// through another node, wins, and st's transaction loses certification
// (1213) every time. The func it returns removes the hook, fails t
// unless st lost at least once, and returns how many of st's runs
// reached their COMMIT.
func nodeFirst(t *testing.T, st *gormstore.Store, node *sql.DB, q string, args ...any) func() int32 {
	var ran atomic.Int32
	before := st.Conflicts()
	gormstore.SetBeforeTxCommit(st, func() {
		if ran.Add(1) != 1 {
			return
		}
		// The node first applies what the cluster committed (a causal
		// read): a write of its own beside a schema change it is still
		// applying (the store's migrations, through node 2) is aborted
		// by the applier with the same 1213 (seen once on CI).
		var n int
		if err := node.QueryRowContext(context.Background(), "SELECT COUNT(*) FROM schema_migrations").Scan(&n); err != nil {
			t.Errorf("the other node's causal read: %v", err)
		}
		for try := 1; ; try++ { // and runs its write again after a 1213 of its own, as a replica would
			_, err := node.ExecContext(context.Background(), q, args...)
			var me *mysqldrv.MySQLError
			if err != nil && errors.As(err, &me) && me.Number == 1213 && try < 3 {
				t.Logf("the other node first, try %d: %s: %v", try, q, err)
				continue
			}
			if err != nil {
				t.Errorf("the other node first: %s: %v", q, err)
			}
			break
		}
	})
	return func() int32 {
		t.Helper()
		gormstore.SetBeforeTxCommit(st, nil)
		if ran.Load() == 0 || st.Conflicts() == before {
			t.Errorf("the store's write ran %d times to its COMMIT and lost %d: the test proves nothing", ran.Load(), st.Conflicts()-before)
		}
		return ran.Load()
	}
}

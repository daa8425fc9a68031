package gormstore_test

import (
	"context"
	"database/sql"
	"sync/atomic"
	"testing"

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
		if _, err := node.ExecContext(context.Background(), q, args...); err != nil {
			t.Errorf("the other node first: %s: %v", q, err)
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

package gormstore_test

import (
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/storetest"
)

func TestReportStoreFake(t *testing.T) {
	t.Parallel()
	storetest.RunReportStore(t, storetest.FakeHarness)
}

func TestReportStoreSQLite(t *testing.T) {
	t.Parallel()
	storetest.RunReportStore(t, storetest.SQLiteHarness)
}

func TestReportStoreMySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	storetest.RunReportStore(t, storetest.MySQLHarness)
}

func TestLoginThrottleSQLite(t *testing.T) {
	t.Parallel()
	runThrottles(t, gormstore.SQLite, storetest.SQLiteThrottle, storetest.SQLiteThrottles)
}

func TestLoginThrottleMySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	runThrottles(t, gormstore.MySQL, storetest.MySQLThrottle, storetest.MySQLThrottles)
}

// runThrottles runs the login-throttle suite on one database throttle of
// driver, then on two replicas on one database, then the bound on its
// key rows.
func runThrottles(t *testing.T, driver string, one func(testing.TB) storetest.ThrottleSubject, two func(testing.TB) (storetest.ThrottleSubject, storetest.ThrottleSubject)) {
	storetest.RunLoginThrottle(t, one)
	t.Run("two replicas", func(t *testing.T) {
		t.Parallel()
		storetest.RunLoginThrottleReplicas(t, two)
	})
	t.Run("key rows capped per kind", func(t *testing.T) {
		t.Parallel()
		dsn := storetest.FreshDSN(t, driver)
		storetest.RunThrottleCap(t, driver, dsn, storetest.MustOpen(t, driver, dsn, gormstore.Options{}))
	})
}

func TestStoreReportLostCommitMySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	storetest.RunLostCommitMySQL(t)
}

func TestStoreMySQLPoolBounded(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	storetest.RunPoolBoundMySQL(t)
}

// TestLookupsAtSizeSQLite and TestLookupsAtSizeMySQL: a page reads at
// most limit + 1 index entries on 10^6 rows of one partner (contract §10).
func TestLookupsAtSizeSQLite(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("10^6 rows take minutes: not in -short (CI runs it)")
	}
	storetest.RunLookupsAtSize(t, gormstore.SQLite)
}

func TestLookupsAtSizeMySQL(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("10^6 rows take minutes: not in -short (CI runs it)")
	}
	storetest.ServerDSN(t)
	storetest.RunLookupsAtSize(t, gormstore.MySQL)
}

// TestStoreHeldCommitBatchMySQL: a retry that waits on a held COMMIT's key
// fails alone, within store.lock_wait_timeout; its 30 batch-mates are
// stored (issue 25; CONTRACT §10 "Lock waits").
func TestStoreHeldCommitBatchMySQL(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	got := storetest.RunHeldCommitBatch(t, dsn, dsn, dsn, 12*time.Second)
	if got.First != nil {
		t.Errorf("the held report: %v; want stored once its COMMIT landed", got.First)
	}
	if !storetest.WaitedOnHeldKey(got.Retry) {
		t.Errorf("the retry: %v; want a lock wait timeout or the first's record, nothing stored twice", got.Retry)
	}
}

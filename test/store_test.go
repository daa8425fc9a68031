package test

import (
	"testing"

	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/storetest"
)

func TestReportStoreFake(t *testing.T) {
	storetest.RunReportStore(t, storetest.FakeHarness)
}

func TestReportStoreSQLite(t *testing.T) {
	storetest.RunReportStore(t, storetest.SQLiteHarness)
}

func TestReportStoreMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	storetest.RunReportStore(t, storetest.MySQLHarness)
}

func TestLoginThrottleMemory(t *testing.T) {
	storetest.RunLoginThrottle(t, func(tb testing.TB) ports.LoginThrottle {
		th, err := memstate.NewThrottle(1000)
		if err != nil {
			tb.Fatal(err)
		}
		return th
	})
}

func TestLoginThrottleSQLite(t *testing.T) {
	storetest.RunLoginThrottle(t, storetest.SQLiteThrottle)
	t.Run("two replicas", func(t *testing.T) { storetest.RunLoginThrottleReplicas(t, storetest.SQLiteThrottles) })
}

func TestLoginThrottleMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	storetest.RunLoginThrottle(t, storetest.MySQLThrottle)
	t.Run("two replicas", func(t *testing.T) { storetest.RunLoginThrottleReplicas(t, storetest.MySQLThrottles) })
}

func TestStoreReportLostCommitMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	storetest.RunLostCommitMySQL(t)
}

func TestStoreMySQLPoolBounded(t *testing.T) {
	storetest.ServerDSN(t)
	storetest.RunPoolBoundMySQL(t)
}

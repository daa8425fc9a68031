package test

import (
	"testing"

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

package test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

func TestReportStoreSQLite(t *testing.T) {
	storetest.RunReportStore(t, storetest.MustOpenSQLite)
}

func TestReportStoreMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	storetest.RunReportStore(t, storetest.MustOpenMySQL)
}

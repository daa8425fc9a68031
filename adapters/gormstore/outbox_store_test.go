package gormstore_test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

// The store suites of contract §11 (test/storetest) on a real SQLite
// file, the test MariaDB and the test Galera cluster; the in-memory fake
// runs them in test/fakes. Without a server the MariaDB and Galera tests
// skip, but under CI=true, where they fail.

func TestDecisionStoreSQLite(t *testing.T) {
	t.Parallel()
	storetest.RunDecisionStore(t, storetest.SQLiteOutboxHarness)
}

func TestDecisionStoreMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	storetest.RunDecisionStore(t, storetest.MySQLOutboxHarness)
}

func TestDecisionStoreGalera(t *testing.T) {
	storetest.GaleraDSNs(t)
	t.Parallel()
	storetest.RunDecisionStore(t, storetest.GaleraOutboxHarness)
}

func TestEventStoreSQLite(t *testing.T) {
	t.Parallel()
	storetest.RunEventStore(t, storetest.SQLiteOutboxHarness)
}

func TestEventStoreMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	storetest.RunEventStore(t, storetest.MySQLOutboxHarness)
}

func TestEventStoreGalera(t *testing.T) {
	storetest.GaleraDSNs(t)
	t.Parallel()
	storetest.RunEventStore(t, storetest.GaleraOutboxHarness)
}

func TestWebhookStoreSQLite(t *testing.T) {
	t.Parallel()
	storetest.RunWebhookStore(t, storetest.SQLiteOutboxHarness)
}

func TestWebhookStoreMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	storetest.RunWebhookStore(t, storetest.MySQLOutboxHarness)
}

func TestWebhookStoreGalera(t *testing.T) {
	storetest.GaleraDSNs(t)
	t.Parallel()
	storetest.RunWebhookStore(t, storetest.GaleraOutboxHarness)
}

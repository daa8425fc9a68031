package gormstore_test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

// The store suites of contract §11 (test/storetest) on a real SQLite
// file, the test MariaDB and the test Galera cluster; the in-memory fake
// runs them in test/fakes. Without a server the MariaDB and Galera tests
// skip, but under CI=true, where they fail.

func TestDecisionStoreSQLite(t *testing.T) { onSQLite(t, storetest.RunDecisionStore) }
func TestDecisionStoreMySQL(t *testing.T)  { onMySQL(t, storetest.RunDecisionStore) }
func TestDecisionStoreGalera(t *testing.T) { onGalera(t, storetest.RunDecisionStore) }
func TestEventStoreSQLite(t *testing.T)    { onSQLite(t, storetest.RunEventStore) }
func TestEventStoreMySQL(t *testing.T)     { onMySQL(t, storetest.RunEventStore) }
func TestEventStoreGalera(t *testing.T)    { onGalera(t, storetest.RunEventStore) }
func TestWebhookStoreSQLite(t *testing.T)  { onSQLite(t, storetest.RunWebhookStore) }
func TestWebhookStoreMySQL(t *testing.T)   { onMySQL(t, storetest.RunWebhookStore) }
func TestWebhookStoreGalera(t *testing.T)  { onGalera(t, storetest.RunWebhookStore) }

// outboxSuite is a store suite of contract §11.
type outboxSuite func(*testing.T, func(testing.TB) storetest.OutboxHarness)

// onSQLite runs suite, in parallel, on SQLite stores.
func onSQLite(t *testing.T, suite outboxSuite) {
	t.Parallel()
	suite(t, storetest.SQLiteOutboxHarness)
}

// onMySQL runs suite, in parallel, on databases of the test MariaDB (it
// skips or fails, as ServerDSN says, without one).
func onMySQL(t *testing.T, suite outboxSuite) {
	storetest.ServerDSN(t)
	t.Parallel()
	suite(t, storetest.MySQLOutboxHarness)
}

// onGalera runs suite, in parallel, on the test Galera cluster (it skips
// or fails, as GaleraDSNs says, without one).
func onGalera(t *testing.T, suite outboxSuite) {
	storetest.GaleraDSNs(t)
	t.Parallel()
	suite(t, storetest.GaleraOutboxHarness)
}

package gormstore_test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

// TestOutboxRaces*: replicas leasing the same deliveries, dispatching the
// same events, creating one partner's endpoints and deciding one report,
// all at once, round after round (storetest.RunOutboxRaces): two stores
// on one SQLite file, two on the test MariaDB, and one on each node of
// the test Galera cluster, where certification, not a lock, decides.

func TestOutboxRacesSQLite(t *testing.T) {
	t.Parallel()
	storetest.RunOutboxRaces(t, func(tb testing.TB) []storetest.OutboxHarness { return storetest.SQLiteOutboxReplicas(tb, 2) }, 10)
}

func TestOutboxRacesMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	storetest.RunOutboxRaces(t, func(tb testing.TB) []storetest.OutboxHarness { return storetest.MySQLOutboxReplicas(tb, 2) }, 20)
}

func TestOutboxRacesGalera(t *testing.T) {
	storetest.GaleraDSNs(t)
	t.Parallel()
	storetest.RunOutboxRaces(t, storetest.GaleraOutboxReplicas, 30)
}

// TestOutboxCrash*: a store's connection cut inside the transactions
// that write a state and its event leaves neither without the other
// (storetest.RunOutboxCrash); on the cluster, checked through another
// node.
func TestOutboxCrashMySQL(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	storetest.RunOutboxCrash(t, dsn, dsn)
}

func TestOutboxCrashGalera(t *testing.T) {
	t.Parallel()
	dsns := storetest.MustCreateGaleraDatabase(t)
	storetest.RunOutboxCrash(t, dsns[0], dsns[1])
}

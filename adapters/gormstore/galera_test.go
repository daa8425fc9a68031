package gormstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// The store suite on the throwaway Galera cluster (test/galera.sh):
// CONTRACT §7 and §10 hold with the service's replicas each writing to
// its own node, with all of them writing through one node, and with
// each given the list of nodes.

func TestReportStoreGaleraSpread(t *testing.T) {
	t.Parallel()
	storetest.GaleraDSNs(t)
	storetest.RunReportStore(t, storetest.GaleraSpreadHarness)
}

func TestReportStoreGaleraOneNode(t *testing.T) {
	t.Parallel()
	storetest.GaleraDSNs(t)
	storetest.RunReportStore(t, storetest.GaleraOneNodeHarness)
}

// TestReportStoreGaleraList: the store suite with each replica given the
// list of every node, its own first (the store's node chooser and its
// connections under every operation).
func TestReportStoreGaleraList(t *testing.T) {
	t.Parallel()
	storetest.GaleraDSNs(t)
	storetest.RunReportStore(t, storetest.GaleraListHarness)
}

func TestLoginThrottleGalera(t *testing.T) {
	t.Parallel()
	storetest.GaleraDSNs(t)
	storetest.RunLoginThrottle(t, func(tb testing.TB) storetest.ThrottleSubject { return storetest.GaleraThrottles(tb)[1] })
	t.Run("two replicas on two nodes", func(t *testing.T) {
		t.Parallel()
		storetest.RunLoginThrottleReplicas(t, func(tb testing.TB) (storetest.ThrottleSubject, storetest.ThrottleSubject) {
			ths := storetest.GaleraThrottles(tb)
			return ths[0], ths[1]
		})
	})
	// The contract's bound across nodes: 40 wrong passwords for one user at
	// once, over 3 replicas on 3 nodes, get throttle.user_failures checks.
	t.Run("40 concurrent takes over 3 nodes: the user budget", func(t *testing.T) {
		t.Parallel()
		storetest.RunThrottleSpread(t, storetest.GaleraThrottles(t), 40, config.Defaults().Throttle.UserFailures)
	})
}

// TestStoreHeldCommitBatchGalera: issue 25's held COMMIT on the cluster.
// Through one node the retry waits on the held key and fails alone, or
// meets the first's record, as on one server; on two nodes nothing waits (row locks are per node): the
// retry's batch commits first and the held COMMIT loses certification,
// is run again and finds the key taken. Either way its 30 batch-mates are
// stored and the key names one row.
func TestStoreHeldCommitBatchGalera(t *testing.T) {
	t.Parallel()
	t.Run("one node", func(t *testing.T) {
		t.Parallel()
		dsns := storetest.MustCreateGaleraDatabase(t)
		got := storetest.RunHeldCommitBatch(t, dsns[0], dsns[0], dsns[0], 12*time.Second)
		if got.First != nil || !storetest.WaitedOnHeldKey(got.Retry) {
			t.Errorf("first %v, retry %v; want stored, and a lock wait timeout or the first's record", got.First, got.Retry)
		}
	})
	t.Run("two nodes", func(t *testing.T) {
		t.Parallel()
		dsns := storetest.MustCreateGaleraDatabase(t)
		got := storetest.RunHeldCommitBatch(t, dsns[0], dsns[1], dsns[2], 12*time.Second)
		if got.Retry != nil || !errors.Is(got.First, domain.ErrConflict) {
			t.Errorf("first %v, retry %v; want the retry stored and the held report to find its key taken", got.First, got.Retry)
		}
	})
}

// TestStoreCertificationRetriesGalera: a certification failure (1213) is
// retried as a whole transaction, never answered as store_failed when a
// retry stores the report.
func TestStoreCertificationRetriesGalera(t *testing.T) {
	t.Parallel()
	storetest.RunCertificationRetries(t, storetest.MustOpenReplicas(t, storetest.MustCreateGaleraDatabase(t)), 30)
}

// TestReservationRaceGalera: a file is never swept while its row commits, with
// the report and the sweep on one node and on two (CONTRACT §7, third
// round: "A row that commits keeps its file").
func TestReservationRaceGalera(t *testing.T) {
	t.Parallel()
	t.Run("one node: the sweep waits and is refused", func(t *testing.T) {
		t.Parallel()
		dsns := storetest.MustCreateGaleraDatabase(t)
		if storetest.RunReservationRace(t, dsns[0], dsns[0], dsns[0]) {
			t.Error("the tombstone was taken through the node that held the reservation")
		}
	})
	t.Run("two nodes: first committer wins", func(t *testing.T) {
		t.Parallel()
		dsns := storetest.MustCreateGaleraDatabase(t)
		storetest.RunReservationRace(t, dsns[0], dsns[1], dsns[2])
	})
}

// TestStoreReportLostCommitGalera: a COMMIT whose answer is lost, never
// applied, or cannot be read back, on a node of the cluster (rows counted
// on another node).
func TestStoreReportLostCommitGalera(t *testing.T) {
	t.Parallel()
	dsns := storetest.MustCreateGaleraDatabase(t)
	storetest.RunLostCommitOn(t, dsns[0], dsns[1])
}

// TestCommitPoolReadsItsOwnRowsGalera: on a Galera node the commit pool's
// sessions do not wait for the cluster (wsrep_sync_wait 0: a batch reads
// only its own rows, returned by its INSERTs, and its START TRANSACTION
// waited for the node to apply what the cluster had committed), while
// the write, look-up and throttle pools' sessions read causally (1), with
// store.dsn carrying wsrep_sync_wait=1 (GALSET) and without it
// (GALBARE). A batch is stored through the node and read back there, and
// the look-ups of a replica on another node still find it at once.
func TestCommitPoolReadsItsOwnRowsGalera(t *testing.T) {
	t.Parallel()
	dsns := storetest.MustCreateGaleraDatabase(t)
	bare, err := mysqldrv.ParseDSN(dsns[0])
	if err != nil {
		t.Fatal(err)
	}
	delete(bare.Params, storetest.CausalReads)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	wait := func(t *testing.T, db *sql.DB) int {
		t.Helper()
		var n int
		if err := db.QueryRowContext(ctx, "SELECT @@SESSION.wsrep_sync_wait").Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	other := storetest.MustOpen(t, gormstore.MySQL, dsns[1], gormstore.Options{})
	for prefix, dsn := range map[string]string{"GALSET": dsns[0], "GALBARE": bare.FormatDSN()} {
		t.Run(prefix, func(t *testing.T) {
			st := storetest.MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{BatchWriters: 1})
			th, err := gormstore.NewThrottle(st, gormstore.ThrottleOptions{Conns: 2, MaxKeys: 10})
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = th.Close() })
			mustStoreOneBatch(t, st, prefix, 6)
			if gormstore.RowReturns(st) < 1 || st.RowMisses() != 0 {
				t.Errorf("%d chunks' ids returned, %d missed; want some, none", gormstore.RowReturns(st), st.RowMisses())
			}
			if _, err := other.GetKey(ctx, "bench", domain.KeyHash(prefix+"-5", "")); err != nil {
				t.Errorf("the batch's last report through node 2 right after: %v", err)
			}
			if got := wait(t, gormstore.CommitPool(st)); got != 0 {
				t.Errorf("the commit pool's sessions: wsrep_sync_wait %d, want 0", got)
			}
			for pool, db := range map[string]*sql.DB{"write": gormstore.Pool(st), "look-up": gormstore.LookupPool(st), "throttle": gormstore.ThrottlePool(th)} {
				if got := wait(t, db); got != 1 {
					t.Errorf("the %s pool's sessions: wsrep_sync_wait %d, want 1 (causal reads)", pool, got)
				}
			}
		})
	}
}

// TestKeyTakenDuringLagGalera: the commit pool's transactions do not wait
// for their node to catch up (wsrep_sync_wait 0), and a key another node
// took a moment ago, while this node is still applying a large write from
// before it, is not taken twice: the report through this node does not
// see the key, loses certification (1213) once, runs again and finds the
// key taken (ErrConflict). Tried with a causal read before each retry:
// no need, the lost COMMIT answers only once the write it lost to is
// applied here (6 of 6 runs without it). The lag is real: node 2 writes
// a few hundred thousand rows in one transaction just before it stores
// the key, and node 1 applies them in order. A round in which the report
// did not lose certification (its node had caught up; or its BEGIN
// waited, as with wsrep_sync_wait 1) proves nothing and runs again with
// twice the rows; four such rounds fail.
func TestKeyTakenDuringLagGalera(t *testing.T) {
	t.Parallel()
	dsns := storetest.MustCreateGaleraDatabase(t)
	a := storetest.MustOpen(t, gormstore.MySQL, dsns[0], gormstore.Options{BatchWriters: 1})
	b := storetest.MustOpen(t, gormstore.MySQL, dsns[1], gormstore.Options{BatchWriters: 1})
	admin, err := sql.Open("mysql", dsns[1])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = admin.Close() })
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if _, err := admin.ExecContext(ctx, "CREATE TABLE lag_rows (id INT PRIMARY KEY, pad CHAR(20) NOT NULL)"); err != nil {
		t.Fatal(err)
	}
	rows := 200_000
	for round := range 4 {
		key := fmt.Sprintf("lag-%d", round)
		if _, err := admin.ExecContext(ctx, "DELETE FROM lag_rows"); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.ExecContext(ctx, fmt.Sprintf("INSERT INTO lag_rows SELECT seq, 'lag' FROM seq_1_to_%d", rows)); err != nil {
			t.Fatal(err)
		}
		rb := fullReport(t, fmt.Sprintf("CR-LAG-B-%d", round))
		if _, _, err := b.StoreReport(ctx, rb, recordT(key, rb.ReceivedAt)); err != nil {
			t.Fatalf("round %d: the key's report through node 2: %v", round, err)
		}
		before := a.Conflicts()
		ra := fullReport(t, fmt.Sprintf("CR-LAG-A-%d", round))
		rec := recordT(key, ra.ReceivedAt)
		rec.PayloadSHA256, rec.Nonce = strings.Repeat("b", 64), fmt.Sprintf("%032x", "other")
		_, _, err := a.StoreReport(ctx, ra, rec)
		lost := a.Conflicts() > before
		var me *mysqldrv.MySQLError
		switch {
		case errors.As(err, &me):
			t.Fatalf("round %d: the report through node 1 answered %v (lost certification: %v); want the key taken", round, err, lost)
		case !errors.Is(err, domain.ErrConflict):
			t.Fatalf("round %d: the report through node 1 answered %v; want the key taken (ErrConflict)", round, err)
		case lost:
			t.Logf("round %d: %d rows of lag; lost certification %d times, then found the key taken", round, rows, a.Conflicts()-before)
			return
		}
		t.Logf("round %d: the report through node 1 saw the key at once (%d rows of lag: its node had caught up, or its BEGIN waited): again with more", round, rows)
		rows *= 2
	}
	t.Fatal("in no round did the report through node 1 lose certification: the node's lag was never seen")
}

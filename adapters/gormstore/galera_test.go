package gormstore_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// withoutCausalReads is dsn as an operator may write it: without
// wsrep_sync_wait (MustCreateGaleraDatabase's DSNs carry it).
func withoutCausalReads(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	delete(cfg.Params, storetest.CausalReads)
	return cfg.FormatDSN()
}

// galeraAdmin is a pool of root connections to node i (0-based) of the
// test cluster, closed at cleanup.
func galeraAdmin(t *testing.T, i int) *sql.DB {
	t.Helper()
	db, err := sql.Open("mysql", storetest.GaleraDSNs(t)[i])
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// TestGaleraReadsFollowWritesAcrossNodes: issue 32 finding 11. With DSNs
// that do not ask for causal reads, a report stored through one node is
// found at once through another, by its idempotency key (a retry on
// another replica) and by its id (GET /v1/reports/{id}): the store sets
// wsrep_sync_wait on every session of a Galera node, its look-up pool's
// included. While the other node's applier is held (FLUSH TABLES WITH
// READ LOCK there), the read waits for the write instead of answering
// "not found"; and 200 reports, each read on the other node right after
// its commit, are all found.
func TestGaleraReadsFollowWritesAcrossNodes(t *testing.T) {
	dsns := storetest.MustCreateGaleraDatabase(t)
	a := storetest.MustOpen(t, gormstore.MySQL, withoutCausalReads(t, dsns[0]), gormstore.Options{})
	b := storetest.MustOpen(t, gormstore.MySQL, withoutCausalReads(t, dsns[1]), gormstore.Options{})
	ctx := context.Background()
	for name, db := range map[string]*sql.DB{"reports' pool": gormstore.Pool(b), "look-ups' pool": gormstore.LookupPool(b)} {
		var wait int
		if err := db.QueryRowContext(ctx, "SELECT @@SESSION.wsrep_sync_wait").Scan(&wait); err != nil || wait&1 == 0 {
			t.Errorf("%s: wsrep_sync_wait %d, %v; want reads causal (bit 1)", name, wait, err)
		}
	}

	t.Run("the other node's applier held", func(t *testing.T) {
		admin := galeraAdmin(t, 1)
		held, err := admin.Conn(ctx)
		if err != nil {
			t.Fatal(err)
		}
		defer held.Close()
		if _, err := held.ExecContext(ctx, "FLUSH TABLES WITH READ LOCK"); err != nil {
			t.Fatal(err)
		}
		unlocked := false
		unlock := func() {
			if !unlocked {
				unlocked = true
				if _, err := held.ExecContext(ctx, "UNLOCK TABLES"); err != nil {
					t.Errorf("unlock node 2: %v", err)
				}
			}
		}
		defer unlock()
		r := fullReport(t, "CR-CAUSAL-HELD")
		rec := recordT("causal-held", r.ReceivedAt)
		id, _, err := a.StoreReport(ctx, r, rec)
		if err != nil {
			t.Fatal(err)
		}
		done := make(chan error, 1)
		go func() {
			_, err := b.GetKey(ctx, rec.User, rec.KeyHash)
			if err == nil {
				_, err = b.GetReport(ctx, r.PartnerUser, id)
			}
			done <- err
		}()
		select {
		case err := <-done:
			t.Fatalf("read on node 2 while its applier is held: %v; want it to wait for the write", err)
		case <-time.After(time.Second):
		}
		unlock()
		select {
		case err := <-done:
			if err != nil {
				t.Fatalf("read on node 2 after the write applied: %v", err)
			}
		case <-time.After(30 * time.Second):
			t.Fatal("the read on node 2 did not end after its applier was released")
		}
	})

	t.Run("200 reads right after their writes", func(t *testing.T) {
		missed := 0
		for i := range 200 {
			r := fullReport(t, fmt.Sprintf("CR-CAUSAL-%d", i))
			id, _, err := a.StoreReport(ctx, r, recordT(fmt.Sprintf("causal-%d", i), r.ReceivedAt))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := b.GetReport(ctx, r.PartnerUser, id); errors.Is(err, domain.ErrNotFound) {
				missed++
			} else if err != nil {
				t.Fatal(err)
			}
		}
		if missed > 0 {
			t.Errorf("%d of 200 reports not found on the other node right after their commit", missed)
		}
	})
}

// TestCheckRefusesUncausalReads: a DSN whose wsrep_sync_wait leaves reads
// uncausal is refused naming store.dsn; one that keeps bit 1, or none
// (the store sets it on Galera), is accepted.
func TestCheckRefusesUncausalReads(t *testing.T) {
	const dsn = "u:secret@tcp(db.internal:3306)/disb"
	for v, refused := range map[string]bool{"": false, "?wsrep_sync_wait=1": false, "?wsrep_sync_wait=3": false,
		"?wsrep_sync_wait=0": true, "?wsrep_sync_wait=6": true, "?wsrep_sync_wait=x": true} {
		err := gormstore.Check(gormstore.MySQL, dsn+v, storetest.WithOptions(gormstore.MySQL, gormstore.Options{}))
		var se *gormstore.SettingError
		if got := errors.As(err, &se) && se.Key == "store.dsn"; got != refused || !refused && err != nil {
			t.Errorf("Check(%q) = %v; refused want %v", v, err, refused)
		}
	}
}

// TestReadinessOnPlainMariaDB: on a server without wsrep the readiness
// check (Ping) passes and sessions keep the server's wsrep_sync_wait.
func TestReadinessOnPlainMariaDB(t *testing.T) {
	st := storetest.MustOpenMySQL(t)
	if err := st.Ping(context.Background()); err != nil {
		t.Fatalf("Ping on a plain MariaDB: %v", err)
	}
}

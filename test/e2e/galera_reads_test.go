package e2e

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
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
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
// included (GetKey reads on the reports' pool, GetReport on the
// look-ups'). While the other node's applier is held (FLUSH TABLES WITH
// READ LOCK there), the read waits for the write instead of answering
// "not found"; and 200 reports, each read on the other node right after
// its commit, are all found. It holds the second node's applier for a
// second, so it holds the test cluster alone (HoldGaleraNodes) and does
// not run in parallel.
func TestGaleraReadsFollowWritesAcrossNodes(t *testing.T) {
	storetest.HoldGaleraNodes(t)
	dsns := storetest.MustCreateGaleraDatabase(t)
	a := storetest.MustOpen(t, gormstore.MySQL, withoutCausalReads(t, dsns[0]), gormstore.Options{})
	b := storetest.MustOpen(t, gormstore.MySQL, withoutCausalReads(t, dsns[1]), gormstore.Options{})
	ctx := context.Background()

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
		r := galeraReport(t, "CR-CAUSAL-HELD")
		rec := galeraRecord("causal-held", r.ReceivedAt)
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
			r := galeraReport(t, fmt.Sprintf("CR-CAUSAL-%d", i))
			id, _, err := a.StoreReport(ctx, r, galeraRecord(fmt.Sprintf("causal-%d", i), r.ReceivedAt))
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

// galeraReport is a full report of credit, received now, of user "galera".
func galeraReport(t *testing.T, credit string) domain.StagedReport {
	t.Helper()
	now := time.Now().UTC()
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(fixture.FullBody(now, credit, nil)), fixture.FileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	return domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "galera", PartnerNIT: "900123456-8",
		RequestID: "galera", PayloadSHA256: strings.Repeat("a", 64)}
}

// galeraRecord is the idempotency record of a galeraReport under key.
func galeraRecord(key string, now time.Time) domain.IdempotencyRecord {
	return domain.IdempotencyRecord{User: "galera", KeyHash: domain.KeyHash(key, ""), PayloadSHA256: strings.Repeat("a", 64),
		State: domain.KeyDone, Nonce: fmt.Sprintf("%032x", key), CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour)}
}

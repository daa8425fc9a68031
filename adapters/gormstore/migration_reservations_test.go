package gormstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// TestMigrationReservesEarlierFiles: migration 3 reserves the file of
// every row stored before it, so the sweep never takes those files for orphans,
// on SQLite and MariaDB. On MariaDB, where each DDL statement commits on
// its own, a run stopped half-way runs again cleanly.
func TestMigrationReservesEarlierFiles(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	onReleasedBefore(t, 3, func(t *testing.T, rel released) {
		// Rows as release 1.1.0 wrote them: no reservations.
		now := time.Now().UTC()
		var files []string
		for i := range 3 {
			credit := fmt.Sprintf("CR-PRE3-%d", i)
			rep, err := cat.MapReport(fixture.Members(fixture.Minimal(now, credit)), fixture.FileRules(), now)
			if err != nil {
				t.Fatal(err)
			}
			r := domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PayloadSHA256: "p"}
			if i < 2 {
				r.FileName, r.FileSize = domain.FileName(credit, now, "pdf"), 10
				files = append(files, r.FileName)
			}
			q, args := gormstore.StagingInsert(rel.driver, cat, r)
			if _, err := rel.db.ExecContext(ctx, q, args...); err != nil {
				t.Fatal(err)
			}
		}
		_ = rel.old.Close()

		// Migration 3 alone: later migrations have their own tests.
		st := openStore(t, rel.driver, rel.dsn, cat, gormstore.Migrations()[:3])
		if applied, err := st.Migrate(ctx); err != nil || len(applied) != 1 || applied[0] != 3 {
			t.Fatalf("Migrate = %v, %v; want [3]", applied, err)
		}
		for _, f := range files {
			if gone, err := st.TombstoneFile(ctx, f); err != nil || gone {
				t.Fatalf("TombstoneFile(%s) of a row stored before migration 3 = %v, %v; want false", f, gone, err)
			}
		}
		if gone, err := st.TombstoneFile(ctx, "partner_CR-PRE3-X_20260101T000000000Z.pdf"); err != nil || !gone {
			t.Fatalf("TombstoneFile of a name no row names = %v, %v; want true", gone, err)
		}
		if got, err := st.UncheckedReservations(ctx, now.Add(time.Hour), 10); err != nil || len(got) != 0 {
			t.Fatalf("UncheckedReservations after the backfill = %+v, %v; want none (checked by their release's sweep)", got, err)
		}
		if rel.driver != gormstore.MySQL {
			return
		}
		// Stopped after its last statement, before it was recorded.
		if _, err := rel.db.ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = 3"); err != nil {
			t.Fatal(err)
		}
		if applied, err := st.Migrate(ctx); err != nil || len(applied) != 1 {
			t.Fatalf("Migrate again = %v, %v; want [3] without error", applied, err)
		}
		var n int
		if err := rel.db.QueryRowContext(ctx, "SELECT COUNT(*) FROM upload_files").Scan(&n); err != nil || n != 3 {
			t.Fatalf("%d upload_files entries (%v), want 3: two reservations and a tombstone", n, err)
		}
	})
}

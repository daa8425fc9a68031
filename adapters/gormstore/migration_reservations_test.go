package gormstore_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMigrationReservesEarlierFiles: migration 3 reserves the file of
// every row stored before it, so the sweep never takes those files for orphans,
// on SQLite and MariaDB. On MariaDB, where each DDL statement commits on
// its own, a run stopped half-way runs again cleanly.
func TestMigrationReservesEarlierFiles(t *testing.T) {
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		t.Run(driver, func(t *testing.T) {
			d := storetest.SQLitePath(t)
			if driver == gormstore.MySQL {
				d = storetest.MustCreateDatabase(t)
			}
			old := openStore(t, driver, d, cat, gormstore.Migrations()[:2])
			if _, err := old.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			// Rows as release 1.1.0 wrote them: no reservations.
			db, err := storetest.OpenSQL(driver, d)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
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
				q, args := gormstore.StagingInsert(driver, cat, r)
				if _, err := db.ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			_ = old.Close()

			// Migration 3 alone: later migrations have their own tests.
			st := openStore(t, driver, d, cat, gormstore.Migrations()[:3])
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
			if driver != gormstore.MySQL {
				return
			}
			// Stopped after its last statement, before it was recorded.
			if _, err := db.ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = 3"); err != nil {
				t.Fatal(err)
			}
			if applied, err := st.Migrate(ctx); err != nil || len(applied) != 1 {
				t.Fatalf("Migrate again = %v, %v; want [3] without error", applied, err)
			}
			var n int
			if err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM upload_files").Scan(&n); err != nil || n != 3 {
				t.Fatalf("%d upload_files entries (%v), want 3: two reservations and a tombstone", n, err)
			}
		})
	}
}

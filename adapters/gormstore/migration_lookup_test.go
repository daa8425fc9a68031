package gormstore_test

import (
	"context"
	"slices"
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMigrationKeysetIndexes: a database of the releases before migration
// 6, with a partner's rows in it, is upgraded on SQLite and MariaDB; its
// pages then come in (received_at, id) order through the new indexes;
// running the migrations again changes nothing, and on MariaDB a run
// stopped half-way is run again.
func TestMigrationKeysetIndexes(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	onReleasedBefore(t, 6, func(t *testing.T, r released) {
		if err := storetest.SeedRows(ctx, r.driver, r.dsn, "acme", "k-", 1000); err != nil {
			t.Fatal(err)
		}
		_ = r.old.Close()

		// Migration 6 and the ones after it (which the store's reads need;
		// they have their own tests).
		st := openStore(t, r.driver, r.dsn, cat, nil)
		if applied, err := st.Migrate(ctx); err != nil || len(applied) == 0 || applied[0] != 6 {
			t.Fatalf("Migrate = %v, %v; want [6 …]", applied, err)
		}
		if applied, err := st.Migrate(ctx); err != nil || len(applied) != 0 {
			t.Fatalf("Migrate again = %v, %v; want nothing", applied, err)
		}
		if r.driver == gormstore.MySQL {
			// MySQL commits each DDL statement: a run stopped after the
			// DROP is run again, its indexes there and the dropped one
			// gone.
			if _, err := r.db.ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = 6"); err != nil {
				t.Fatal(err)
			}
			if applied, err := st.Migrate(ctx); err != nil || !slices.Equal(applied, []int{6}) {
				t.Fatalf("Migrate after a run stopped half-way = %v, %v; want [6]", applied, err)
			}
		}
		var seen []int64
		f := ports.ReportFilter{User: "acme", From: storetest.SizeBase, Limit: 300}
		for {
			page, err := st.ListReports(ctx, f)
			if err != nil {
				t.Fatal(err)
			}
			for _, r := range page {
				seen = append(seen, r.ID)
			}
			if len(page) < f.Limit {
				break
			}
			f.After = page[len(page)-1].Position
		}
		// Seeded rows go up in time with their ids.
		if len(seen) != 1000 || !slices.IsSorted(seen) || seen[0] != 1 {
			t.Fatalf("pages after the upgrade: %d ids, sorted %v, first %v", len(seen), slices.IsSorted(seen), seen[:min(3, len(seen))])
		}
	})
}

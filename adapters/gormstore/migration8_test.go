package gormstore_test

import (
	"context"
	"database/sql"
	"slices"
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/storetest"
)

// stagingIndexes are the staging table's secondary indexes after
// migration 8: one order per table.
var stagingIndexes = []string{"ix_staging_file_name", "ix_staging_numero_credito", "ix_staging_received",
	"ix_staging_user_credit_received", "ix_staging_user_key_received", "ix_staging_user_received_id"}

// TestMigrationOneOrder: a database of the releases before migration 8
// (10 secondary indexes on the staging table), with a partner's rows in
// it and some of them decided, is upgraded on SQLite and MariaDB: the
// table then has the 6 indexes the look-ups read, the partner's pages by
// state and support's newest-first pages come as before; running the
// migrations again changes nothing, and on MariaDB a run stopped
// half-way is run again.
func TestMigrationOneOrder(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	onReleasedBefore(t, 8, func(t *testing.T, r released) {
		if got := secondaryIndexes(t, r.driver, r.db); len(got) != 10 {
			t.Fatalf("before migration 8: %d indexes %v, want 10", len(got), got)
		}
		if err := storetest.SeedRows(ctx, r.driver, r.dsn, "acme", "k-", 300); err != nil {
			t.Fatal(err)
		}
		if _, err := r.db.ExecContext(ctx, "UPDATE "+gormstore.StagingTable+" SET status = 'rejected' WHERE id % 3 = 0"); err != nil {
			t.Fatal(err)
		}
		_ = r.old.Close()

		st := openStore(t, r.driver, r.dsn, domain.DefaultCatalogue(), nil)
		if applied, err := st.Migrate(ctx); err != nil || !slices.Equal(applied, []int{8, 9, 10}) {
			t.Fatalf("Migrate = %v, %v; want [8 9 10]", applied, err)
		}
		if applied, err := st.Migrate(ctx); err != nil || len(applied) != 0 {
			t.Fatalf("Migrate again = %v, %v; want nothing", applied, err)
		}
		if r.driver == gormstore.MySQL {
			if _, err := r.db.ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = 8"); err != nil {
				t.Fatal(err)
			}
			if applied, err := st.Migrate(ctx); err != nil || !slices.Equal(applied, []int{8}) {
				t.Fatalf("Migrate after a run stopped half-way = %v, %v; want [8]", applied, err)
			}
		}
		if got := secondaryIndexes(t, r.driver, r.db); !slices.Equal(got, stagingIndexes) {
			t.Errorf("after migration 8: %v, want %v", got, stagingIndexes)
		}
		var seen []int64
		f := ports.ReportFilter{User: "acme", Status: domain.StatusRejected, Limit: 40}
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
		// Seeded rows go up in time with their ids; every third is rejected.
		if len(seen) != 100 || !slices.IsSorted(seen) || seen[0] != 3 {
			t.Errorf("?status=rejected after the upgrade: %d ids, sorted %v, first %v", len(seen), slices.IsSorted(seen), seen[:min(3, len(seen))])
		}
		recs, err := st.FindReports(ctx, ports.ArchiveFilter{User: "acme", BeforeID: 101, Limit: 3})
		if err != nil || len(recs) != 3 || recs[0].ID != 100 || recs[2].ID != 98 {
			t.Errorf("support's page before report 101: %+v, %v; want 100, 99, 98", recs, err)
		}
	})
}

// secondaryIndexes lists the staging table's indexes but its primary key,
// by name.
func secondaryIndexes(t *testing.T, driver string, db *sql.DB) []string {
	t.Helper()
	q := "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = ? AND name NOT LIKE 'sqlite_%' ORDER BY name"
	if driver == gormstore.MySQL {
		q = "SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE() AND table_name = ? AND index_name <> 'PRIMARY' ORDER BY index_name"
	}
	rows, err := db.Query(q, gormstore.StagingTable)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			t.Fatal(err)
		}
		out = append(out, name)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

package gormstore_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/storetest"
)

// TestArchivePlansSQLite and TestArchivePlansMySQL: every statement of
// support's look-ups across partners (FindReport, and FindReports with
// each set of filters, with and without a partner) reads through the
// index meant for it, never a scan of the table, on the table lookupPlans
// uses. The plans are logged for the lead's note (go test -v).
func TestArchivePlansSQLite(t *testing.T) {
	t.Parallel()
	path := storetest.SQLitePath(t)
	st := storetest.MustOpen(t, gormstore.SQLite, path, gormstore.Options{})
	archivePlans(t, st, gormstore.SQLite, path)
}

func TestArchivePlansMySQL(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	st := storetest.MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{})
	archivePlans(t, st, gormstore.MySQL, dsn)
}

func archivePlans(t *testing.T, st *gormstore.Store, driver, dsn string) {
	db, err := storetest.OpenDB(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer storetest.CloseDB(db)
	base := time.Date(2026, 10, 1, 0, 0, 0, 0, time.UTC)
	seedPlanRows(t, db, base)
	analyze := "ANALYZE"
	if driver == gormstore.MySQL {
		analyze = "ANALYZE TABLE " + gormstore.StagingTable + " PERSISTENT FOR ALL"
	}
	if err := db.Exec(analyze).Error; err != nil {
		t.Fatal(err)
	}
	day := base.AddDate(0, 0, 20)
	// Each shape names the index it must read through ("" is the primary
	// key): a range on the id alone would pass the scan check while
	// reading the whole table for a filter no index serves.
	cases := []struct {
		name  string
		f     ports.ArchiveFilter
		index string
	}{
		{"newest of every partner", ports.ArchiveFilter{Limit: 51}, ""},
		{"every partner before an id", ports.ArchiveFilter{BeforeID: 2500, Limit: 51}, ""},
		{"a credit number of every partner", ports.ArchiveFilter{CreditNumber: "CR-00042", Limit: 51}, "ix_staging_numero_credito"},
		{"a day of every partner", ports.ArchiveFilter{From: day, To: day.AddDate(0, 0, 1), Limit: 51}, "ix_staging_received"},
		{"a day of every partner before an id", ports.ArchiveFilter{From: day, To: day.AddDate(0, 0, 1), BeforeID: 4000, Limit: 51}, "ix_staging_received"},
		{"from a date, every partner", ports.ArchiveFilter{From: day, Limit: 51}, "ix_staging_received"},
		{"a credit number in a day, every partner", ports.ArchiveFilter{CreditNumber: "CR-00042", From: day, To: day.AddDate(0, 0, 1), Limit: 51}, "ix_staging_numero_credito"},
		{"one partner", ports.ArchiveFilter{User: "p0", Limit: 51}, "ix_staging_user_id"},
		{"one partner before an id", ports.ArchiveFilter{User: "p0", BeforeID: 2500, Limit: 51}, "ix_staging_user_id"},
		{"a credit number of one partner", ports.ArchiveFilter{User: "p0", CreditNumber: "CR-00042", Limit: 51}, "ix_staging_user_credit"},
		{"a key of one partner", ports.ArchiveFilter{User: "p0", IdempotencyKey: "key-00042", Limit: 51}, "ix_staging_user_key"},
		{"a day of one partner", ports.ArchiveFilter{User: "p0", From: day, To: day.AddDate(0, 0, 1), Limit: 51}, "ix_staging_user_received_id"},
		{"a small partner", ports.ArchiveFilter{User: "p5", Limit: 51}, "ix_staging_user_id"},
	}
	run := func(name, query string, args []any, index string) {
		t.Run(name, func(t *testing.T) {
			plan, full := explain(t, db, driver, query, args)
			t.Logf("%s\n%s\n%s", name, query, plan)
			if full != "" {
				t.Errorf("%s reads without an index: %s\n%s", name, full, plan)
			}
			want := map[string]string{gormstore.SQLite: "INDEX " + index + " (", gormstore.MySQL: "key=" + index + " "}[driver]
			if index == "" {
				want = map[string]string{gormstore.SQLite: "USING INTEGER PRIMARY KEY", gormstore.MySQL: "key=PRIMARY "}[driver]
			}
			if !strings.Contains(plan, want) {
				t.Errorf("%s does not read through %q:\n%s", name, want, plan)
			}
		})
	}
	run("find one report", gormstore.FindQuery(st), []any{int64(4321)}, "")
	for _, tt := range cases {
		q, args, err := gormstore.ArchiveQuery(st, tt.f)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		run(tt.name, q, args, tt.index)
	}
	if _, _, err := gormstore.ArchiveQuery(st, ports.ArchiveFilter{IdempotencyKey: "key-00042", Limit: 51}); err == nil {
		t.Error("a key without a partner: no error (no index starts with the key)")
	}
}

package gormstore_test

import (
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
)

// TestArchivePlansSQLite and TestArchivePlansMySQL: every statement of
// support's look-ups across partners (FindReport, and FindReports with
// each set of filters, with and without a partner) reads through the
// index meant for it, never a scan of the table, on the table lookupPlans
// uses. The plans are logged for the lead's note (go test -v).
func TestArchivePlansSQLite(t *testing.T) {
	t.Parallel()
	archivePlans(t, gormstore.SQLite)
}

func TestArchivePlansMySQL(t *testing.T) {
	t.Parallel()
	archivePlans(t, gormstore.MySQL)
}

func archivePlans(t *testing.T, driver string) {
	st, db := planStore(t, driver, nil)
	day := planBase.AddDate(0, 0, 20)
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
	// A sort is not what this test holds an archive page to (it never
	// was): the index each shape reads through is.
	checks := []planCase{{name: "find one report", query: gormstore.FindQuery(st), args: []any{int64(4321)}, index: primaryKey, mayHaveSort: true}}
	for _, tt := range cases {
		q, args, err := gormstore.ArchiveQuery(st, tt.f)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		index := tt.index
		if index == "" {
			index = primaryKey
		}
		checks = append(checks, planCase{name: tt.name, query: q, args: args, index: index, mayHaveSort: true})
	}
	checkPlans(t, db, driver, checks)
	if _, _, err := gormstore.ArchiveQuery(st, ports.ArchiveFilter{IdempotencyKey: "key-00042", Limit: 51}); err == nil {
		t.Error("a key without a partner: no error (no index starts with the key)")
	}
}

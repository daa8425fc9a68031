package gormstore_test

import (
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
)

// TestArchivePlansSQLite and TestArchivePlansMySQL: every statement of
// support's look-ups across partners (FindReport, and FindReports with
// each set of filters, with and without a partner, first pages and pages
// before a report) reads through the index meant for it, never a scan of
// the table, and sorts nothing but the few rows of one credit number, on
// the table lookupPlans uses. The plans are logged for the lead's note
// (go test -v).
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
	// at is the list position of seeded row i (id i+1).
	at := func(i int) ports.ListPosition {
		return ports.ListPosition{ReceivedAt: planBase.Add(time.Duration(i) * (30 * 24 * time.Hour / planRows)), ID: int64(i + 1)}
	}
	// Each shape names the index it must read through: a range on the
	// receipt time alone would pass the scan check while reading the whole
	// table for a filter no index serves. Support's pages are the
	// partner's look-up's order read backwards: with a partner, through
	// the same indexes.
	cases := []struct {
		name   string
		f      ports.ArchiveFilter
		before ports.ListPosition
		index  string
		sorts  bool
	}{
		{"newest of every partner", ports.ArchiveFilter{Limit: 51}, ports.ListPosition{}, "ix_staging_received", false},
		{"every partner before a report", ports.ArchiveFilter{BeforeID: 2500, Limit: 51}, at(2499), "ix_staging_received", false},
		// The few rows of one credit are sorted by their receipt time.
		{"a credit number of every partner", ports.ArchiveFilter{CreditNumber: "CR-00042", Limit: 51}, ports.ListPosition{}, "ix_staging_numero_credito", true},
		{"a day of every partner", ports.ArchiveFilter{From: day, To: day.AddDate(0, 0, 1), Limit: 51}, ports.ListPosition{}, "ix_staging_received", false},
		{"a day of every partner before a report", ports.ArchiveFilter{From: day, To: day.AddDate(0, 0, 1), BeforeID: 4100, Limit: 51}, at(4099), "ix_staging_received", false},
		{"from a date, every partner", ports.ArchiveFilter{From: day, Limit: 51}, ports.ListPosition{}, "ix_staging_received", false},
		{"a credit number in a day, every partner", ports.ArchiveFilter{CreditNumber: "CR-00042", From: day, To: day.AddDate(0, 0, 1), Limit: 51}, ports.ListPosition{}, "ix_staging_numero_credito", true},
		{"one partner", ports.ArchiveFilter{User: "p0", Limit: 51}, ports.ListPosition{}, "ix_staging_user_received_id", false},
		{"one partner before a report", ports.ArchiveFilter{User: "p0", BeforeID: 2500, Limit: 51}, at(2499), "ix_staging_user_received_id", false},
		{"a credit number of one partner", ports.ArchiveFilter{User: "p0", CreditNumber: "CR-00042", Limit: 51}, ports.ListPosition{}, "ix_staging_user_credit_received", false},
		{"a credit number of one partner before a report", ports.ArchiveFilter{User: "p0", CreditNumber: "CR-00042", BeforeID: 255, Limit: 51}, at(254), "ix_staging_user_credit_received", false},
		{"a key of one partner", ports.ArchiveFilter{User: "p0", IdempotencyKey: "key-00042", Limit: 51}, ports.ListPosition{}, "ix_staging_user_key_received", false},
		{"a day of one partner", ports.ArchiveFilter{User: "p0", From: day, To: day.AddDate(0, 0, 1), Limit: 51}, ports.ListPosition{}, "ix_staging_user_received_id", false},
		{"a small partner", ports.ArchiveFilter{User: "p5", Limit: 51}, ports.ListPosition{}, "ix_staging_user_received_id", false},
		{"a small partner before a report", ports.ArchiveFilter{User: "p5", BeforeID: 2500, Limit: 51}, at(2499), "ix_staging_user_received_id", false},
	}
	checks := []planCase{{name: "find one report", query: gormstore.FindQuery(st), args: []any{int64(4321)}, index: primaryKey, mayHaveSort: true}}
	for _, tt := range cases {
		q, args, err := gormstore.ArchiveQuery(st, tt.f, tt.before)
		if err != nil {
			t.Fatalf("%s: %v", tt.name, err)
		}
		checks = append(checks, planCase{name: tt.name, query: q, args: args, index: tt.index, mayHaveSort: tt.sorts})
	}
	checkPlans(t, db, driver, checks)
	if _, _, err := gormstore.ArchiveQuery(st, ports.ArchiveFilter{IdempotencyKey: "key-00042", Limit: 51}, ports.ListPosition{}); err == nil {
		t.Error("a key without a partner: no error (no index starts with the key)")
	}
}

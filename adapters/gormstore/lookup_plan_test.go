package gormstore_test

import (
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
)

// TestLookupPlansSQLite and TestLookupPlansMySQL: every statement of the
// partner's look-ups (GetReport, and ListReports with each set of
// filters) reads through an index, never a scan of the table, and sorts
// nothing, on a small table of several partners with planner statistics.
// The plans are logged (go test -v). That a page reads at most limit+1
// entries at 10^6 rows is the store suite's (storetest.RunLookupsAtSize);
// this test keeps the plan of each shape visible and quick to check.
func TestLookupPlansSQLite(t *testing.T) {
	t.Parallel()
	lookupPlans(t, gormstore.SQLite)
}

func TestLookupPlansMySQL(t *testing.T) {
	t.Parallel()
	lookupPlans(t, gormstore.MySQL)
}

func lookupPlans(t *testing.T, driver string) {
	st, db := planStore(t, driver, nil)
	base := planBase
	day := base.AddDate(0, 0, 20)
	// after is the list position of seeded row i (id i+1).
	after := func(i int) ports.ListPosition {
		return ports.ListPosition{ReceivedAt: base.Add(time.Duration(i) * (30 * 24 * time.Hour / planRows)), ID: int64(i + 1)}
	}
	checkPlans(t, db, driver, []planCase{
		{name: "get one report", query: gormstore.GetQuery(st), args: []any{int64(4321), "p0"}},
		list(st, "list all", ports.ReportFilter{User: "p0", Limit: 101}),
		list(st, "list after a cursor", ports.ReportFilter{User: "p0", After: after(2499), Limit: 101}),
		list(st, "list by credit after a cursor", ports.ReportFilter{User: "p0", CreditNumber: "CR-00042", After: after(252), Limit: 101}),
		list(st, "list by credit", ports.ReportFilter{User: "p0", CreditNumber: "CR-00042", Limit: 101}),
		list(st, "list by key", ports.ReportFilter{User: "p0", IdempotencyKey: "key-00042", Limit: 101}),
		list(st, "list a day", ports.ReportFilter{User: "p0", From: day, To: day.AddDate(0, 0, 1), Limit: 101}),
		list(st, "list a day after a cursor", ports.ReportFilter{User: "p0", From: day, To: day.AddDate(0, 0, 1), After: after(4001), Limit: 101}),
		list(st, "list from a date", ports.ReportFilter{User: "p0", From: day, Limit: 101}),
		list(st, "list by credit in a day", ports.ReportFilter{User: "p0", CreditNumber: "CR-00042", From: day, To: day.AddDate(0, 0, 1), Limit: 101}),
		list(st, "list of a small partner", ports.ReportFilter{User: "p5", Limit: 101}),
		list(st, "list of a small partner after a cursor", ports.ReportFilter{User: "p5", After: after(2499), Limit: 101}),
		list(st, "list a day of a small partner", ports.ReportFilter{User: "p5", From: day, To: day.AddDate(0, 0, 1), Limit: 101}),
	})
}

func list(st *gormstore.Store, name string, f ports.ReportFilter) planCase {
	q, args := gormstore.ListQuery(st, f)
	return planCase{name: name, query: q, args: args}
}

package gormstore_test

import (
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
)

// TestFieldsPlanSQLite and TestFieldsPlanMySQL: the fields of a page
// (ReportFields, for include=fields and the CSV export) are read through
// an index, one entry per id, a full page of ids included, and sort
// nothing: SQLite seeks the primary key; MariaDB may prefer the range of
// (partner_user, id) that holds the same ids.
func TestFieldsPlanSQLite(t *testing.T) {
	t.Parallel()
	fieldsPlan(t, gormstore.SQLite)
}

func TestFieldsPlanMySQL(t *testing.T) {
	t.Parallel()
	fieldsPlan(t, gormstore.MySQL)
}

func fieldsPlan(t *testing.T, driver string) {
	st, db := planStore(t, driver, nil)
	var cases []planCase
	for _, n := range []int{1, domain.PageFieldsMax} {
		args := make([]any, 0, n+1)
		for i := range n {
			args = append(args, int64(1001+2*i)) // p0's rows (seedPlanRows)
		}
		cases = append(cases, planCase{name: "fields of a page", query: gormstore.FieldsQuery(st, n), args: append(args, "p0")})
	}
	checkPlans(t, db, driver, cases)
}

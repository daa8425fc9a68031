package gormstore_test

import (
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestStatusPlansSQLite and TestStatusPlansMySQL: a page of ?status= reads
// through the partner's (partner_user, received_at, id) index in its
// order, keeping the rows in that state (no scan, no sort; migration 8
// dropped migration 7's status index), with a cursor and a date range
// too; with a credit number or a key beside the status it reads through
// that filter's index (the few reports of that credit or key). On the
// table lookupPlans uses, a third of it accepted and a third rejected,
// with statistics.
func TestStatusPlansSQLite(t *testing.T) {
	statusPlans(t, gormstore.SQLite)
}

func TestStatusPlansMySQL(t *testing.T) {
	statusPlans(t, gormstore.MySQL)
}

func statusPlans(t *testing.T, driver string) {
	st, db := planStore(t, driver, func(db *gorm.DB) {
		for _, stmt := range []string{
			"UPDATE " + gormstore.StagingTable + " SET status = 'accepted' WHERE id % 3 = 1",
			"UPDATE " + gormstore.StagingTable + " SET status = 'rejected' WHERE id % 3 = 2",
		} {
			if err := db.Exec(stmt).Error; err != nil {
				t.Fatal(err)
			}
		}
	})
	base := planBase
	day := base.AddDate(0, 0, 20)
	after := ports.ListPosition{ReceivedAt: base.Add(2499 * (30 * 24 * time.Hour / planRows)), ID: 2500}
	const byStatus = "ix_staging_user_received_id"
	var cases []planCase
	for _, tt := range []struct {
		name  string
		f     ports.ReportFilter
		index string
	}{
		{"rejected", ports.ReportFilter{User: "p0", Status: domain.StatusRejected, Limit: 101}, byStatus},
		{"received after a cursor", ports.ReportFilter{User: "p0", Status: domain.StatusReceived, After: after, Limit: 101}, byStatus},
		{"accepted in a day", ports.ReportFilter{User: "p0", Status: domain.StatusAccepted, From: day, To: day.AddDate(0, 0, 1), Limit: 101}, byStatus},
		{"accepted in a day after a cursor", ports.ReportFilter{User: "p0", Status: domain.StatusAccepted, From: day, To: day.AddDate(0, 0, 1),
			After: ports.ListPosition{ReceivedAt: day.Add(time.Hour), ID: 4001}, Limit: 101}, byStatus},
		{"rejected of a small partner", ports.ReportFilter{User: "p5", Status: domain.StatusRejected, Limit: 101}, byStatus},
		{"rejected with a credit number", ports.ReportFilter{User: "p0", Status: domain.StatusRejected, CreditNumber: "CR-00042", Limit: 101},
			"ix_staging_user_credit_received"},
		{"rejected with a key", ports.ReportFilter{User: "p0", Status: domain.StatusRejected, IdempotencyKey: "key-00042", Limit: 101},
			"ix_staging_user_key_received"},
	} {
		query, args := gormstore.ListQuery(st, tt.f)
		cases = append(cases, planCase{name: tt.name, query: query, args: args, index: tt.index})
	}
	checkPlans(t, db, driver, cases)
}

package gormstore_test

import (
	"strings"
	"testing"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestEventPlansSQLite and TestEventPlansMySQL: a page of GET /v1/events
// reads each type's events through the (partner_user, type, created_at,
// id) index in its order, and each event's report by its primary key:
// no scan and no sort of the partner's events, with a type, with all,
// after a cursor and before the list delay's bound; on planRows events of
// 6 partners (one with half of them), with statistics.
func TestEventPlansSQLite(t *testing.T) {
	eventPlans(t, gormstore.SQLite)
}

func TestEventPlansMySQL(t *testing.T) {
	eventPlans(t, gormstore.MySQL)
}

func eventPlans(t *testing.T, driver string) {
	st, db := planStore(t, driver, func(db *gorm.DB) { seedPlanEvents(t, db, planBase) }, "report_events")
	base := planBase
	after := ports.EventPosition{CreatedAt: base.Add(15 * 24 * time.Hour), Seq: 3001}
	before := base.Add(25 * 24 * time.Hour)
	for _, tt := range []struct {
		name string
		f    ports.EventFilter
	}{
		{"every type", ports.EventFilter{User: "p0", Before: before, Limit: 101}},
		{"every type after a cursor", ports.EventFilter{User: "p0", Before: before, After: after, Limit: 101}},
		{"one type", ports.EventFilter{User: "p0", Types: []domain.EventType{domain.EventRejected}, Before: before, Limit: 101}},
		{"one type after a cursor", ports.EventFilter{User: "p0", Types: []domain.EventType{domain.EventReceived}, Before: before, After: after, Limit: 101}},
		{"two types of a small partner", ports.EventFilter{User: "p5", Types: []domain.EventType{domain.EventAccepted, domain.EventRejected},
			Before: before, Limit: 101}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			query, args := st.EventListStatement(tt.f)
			plan, _ := explain(t, db, driver, query, args)
			t.Logf("%s\n%s\n%s", tt.name, query, plan)
			events, other := 0, 0
			for _, step := range strings.Split(plan, "\n") {
				switch {
				case strings.Contains(step, "TEMP B-TREE"), strings.Contains(step, "filesort"):
					t.Errorf("sorts its rows: %s", step)
				case driver == gormstore.SQLite && strings.HasPrefix(step, "SEARCH e USING INDEX ix_report_events_user_type (partner_user=? AND type=?"),
					driver == gormstore.MySQL && strings.Contains(step, "table=e ") && strings.Contains(step, "key=ix_report_events_user_type "):
					events++
				case driver == gormstore.SQLite && strings.HasPrefix(step, "SEARCH s USING INTEGER PRIMARY KEY"),
					driver == gormstore.MySQL && strings.Contains(step, "table=s type=eq_ref") && strings.Contains(step, "key=PRIMARY "):
					other++
				case strings.Contains(step, "SCAN e"), strings.Contains(step, "SCAN s"), strings.Contains(step, "table=e "),
					strings.Contains(step, "table=s "):
					t.Errorf("reads events or reports otherwise: %s", step)
				}
			}
			ranges := len(tt.f.Types)
			if ranges == 0 {
				ranges = len(domain.EventTypes)
			}
			if tt.f.After.Seq > 0 && driver == gormstore.SQLite {
				ranges *= 2 // the cursor's instant, then the later ones
			}
			if events != ranges || other != ranges {
				t.Errorf("%d ranges of the events' index and %d reports by primary key; want %d of each", events, other, ranges)
			}
		})
	}
}

// seedPlanEvents gives each report seeded by seedPlanRows its
// report.received event, and every third and fifth report an accepted
// or rejected one a day later.
func seedPlanEvents(t *testing.T, db *gorm.DB, base time.Time) {
	t.Helper()
	for _, stmt := range []string{
		"INSERT INTO report_events (partner_user, report_id, type, created_at) SELECT partner_user, id, 'report.received', received_at FROM " +
			gormstore.StagingTable,
		"INSERT INTO report_events (partner_user, report_id, type, created_at) SELECT partner_user, id, 'report.accepted', received_at FROM " +
			gormstore.StagingTable + " WHERE id % 3 = 0",
		"INSERT INTO report_events (partner_user, report_id, type, created_at) SELECT partner_user, id, 'report.rejected', received_at FROM " +
			gormstore.StagingTable + " WHERE id % 5 = 0 AND id % 3 <> 0",
	} {
		if err := db.Exec(stmt).Error; err != nil {
			t.Fatalf("seed events: %v", err)
		}
	}
	if err := db.Exec("UPDATE report_events SET created_at = ? WHERE type <> 'report.received'", base.AddDate(0, 0, 1)).Error; err != nil {
		t.Fatal(err)
	}
}

package storetest

import (
	"testing"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/adapters/gormstore"
)

// OutboxCount is what OutboxCheck found: the outbox's rule broken either
// way (contract §11: an event is written in the transaction of the state
// it reports).
type OutboxCount struct {
	Reports, Events int64 // rows seen
	// NoEvent counts the states without their event: a report without
	// its report.received event, a decided report without the event of
	// its decision.
	NoEvent int64
	// NoState counts the events without their state: a decision's event
	// whose report is in another state. (An event whose report was
	// purged is not one: the purge takes reports only.)
	NoState int64
}

// OutboxCheck counts, on the database db of driver, what OutboxCount
// holds. A soak or a crash test calls it at the end: both counts must be 0.
func OutboxCheck(tb testing.TB, db *gorm.DB, driver string) OutboxCount {
	tb.Helper()
	decided := "CONCAT('report.', s.status)"
	if driver == gormstore.SQLite {
		decided = "'report.' || s.status"
	}
	var c OutboxCount
	for _, q := range []struct {
		to  *int64
		sql string
	}{
		{&c.Reports, "SELECT COUNT(*) FROM " + gormstore.StagingTable},
		{&c.Events, "SELECT COUNT(*) FROM report_events"},
		{&c.NoEvent, "SELECT COUNT(*) FROM " + gormstore.StagingTable + " AS s WHERE NOT EXISTS (SELECT 1 FROM report_events AS e" +
			" WHERE e.report_id = s.id AND e.type = 'report.received') OR s.status <> 'received' AND NOT EXISTS" +
			" (SELECT 1 FROM report_events AS e WHERE e.report_id = s.id AND e.type = " + decided + ")"},
		{&c.NoState, "SELECT COUNT(*) FROM report_events AS e JOIN " + gormstore.StagingTable + " AS s ON s.id = e.report_id" +
			" WHERE e.type <> 'report.received' AND e.type <> " + decided},
	} {
		if err := db.Raw(q.sql).Scan(q.to).Error; err != nil {
			tb.Fatalf("outbox check: %v", err)
		}
	}
	return c
}

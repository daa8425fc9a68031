package storetest

import (
	"context"
	"fmt"
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// OutboxHarness is a store of contract §11 under test (reports with their
// decisions, events, webhook endpoints, deliveries and back-office
// clients) and what the suite needs to look at it from outside.
type OutboxHarness struct {
	Reports    ports.ReportStore
	Lookup     ports.ReportLookup
	Archive    ports.ReportArchive
	Purge      ports.PurgeStore
	Decisions  ports.DecisionStore
	Events     ports.EventStore
	Endpoints  ports.EndpointStore
	Deliveries ports.DeliveryStore
	Backoffice ports.BackofficeStore
	// RefuseEvents makes the store refuse every event's write from now
	// on, as a statement failing inside the state's transaction would (a
	// trigger on a real database).
	RefuseEvents func(tb testing.TB)
	// Check counts, straight from the tables, the states without their
	// event and the events without their state (OutboxCheck).
	Check func(tb testing.TB) OutboxCount
	// Conflicts counts the transactions the store ran again, or the
	// leases it lost, after a 1213 (nil for a store without them).
	Conflicts func() int64
	// AllUndispatched is set for a store that writes every event not
	// yet dispatched (a Galera cluster: gormstore's listeners.go); the
	// others write a report's event dispatched when its partner has no
	// endpoint.
	AllUndispatched bool
	// Certification, on a Galera cluster only, reads the server's count
	// of local certification failures and of local transactions aborted
	// by another node's write (wsrep_local_cert_failures and
	// wsrep_local_bf_aborts) on this replica's node.
	Certification func(tb testing.TB) int64
}

// store is everything a gormstore.Store and the fake both are.
type outboxStore interface {
	ports.ReportStore
	ports.ReportLookup
	ports.ReportArchive
	ports.PurgeStore
	ports.DecisionStore
	ports.EventStore
	ports.EndpointStore
	ports.DeliveryStore
	ports.BackofficeStore
}

func outboxHarness(st outboxStore) OutboxHarness {
	return OutboxHarness{Reports: st, Lookup: st, Archive: st, Purge: st, Decisions: st, Events: st,
		Endpoints: st, Deliveries: st, Backoffice: st}
}

// FakeOutboxHarness is the in-memory fakes.Outbox.
func FakeOutboxHarness(tb testing.TB) OutboxHarness {
	return fakeOutbox(fakes.NewOutbox())
}

func fakeOutbox(o *fakes.Outbox) OutboxHarness {
	h := outboxHarness(o)
	h.RefuseEvents = func(testing.TB) { o.RefuseEvents(fmt.Errorf("refused by the test")) }
	h.Check = func(testing.TB) OutboxCount { return OutboxCount{} } // one lock holds both: nothing to see
	return h
}

// FakeOutboxReplicas are n replicas of one in-memory store.
func FakeOutboxReplicas(tb testing.TB, n int) []OutboxHarness {
	h := fakeOutbox(fakes.NewOutbox())
	out := make([]OutboxHarness, n)
	for i := range out {
		out[i] = h
	}
	return out
}

// SQLiteOutboxHarness is a migrated SQLite store in a temp directory.
func SQLiteOutboxHarness(tb testing.TB) OutboxHarness {
	return SQLiteOutboxReplicas(tb, 1)[0]
}

// SQLiteOutboxReplicas are n stores on one SQLite file, as n processes
// on one machine would be.
func SQLiteOutboxReplicas(tb testing.TB, n int) []OutboxHarness {
	return gormOutboxReplicas(tb, gormstore.SQLite, SQLitePath(tb), n)
}

// MySQLOutboxHarness is a migrated MySQL store on a fresh database.
func MySQLOutboxHarness(tb testing.TB) OutboxHarness {
	return MySQLOutboxReplicas(tb, 1)[0]
}

// MySQLOutboxReplicas are n stores on one fresh database of the test
// server.
func MySQLOutboxReplicas(tb testing.TB, n int) []OutboxHarness {
	return gormOutboxReplicas(tb, gormstore.MySQL, MustCreateDatabase(tb), n)
}

// GaleraOutboxHarness is a store on the first node of a fresh database
// on the test cluster.
func GaleraOutboxHarness(tb testing.TB) OutboxHarness {
	dsns := MustCreateGaleraDatabase(tb)
	h := gormOutbox(tb, MustOpen(tb, gormstore.MySQL, dsns[0], gormstore.Options{}), gormstore.MySQL, dsns[0])
	h.AllUndispatched = true
	return h
}

// GaleraOutboxReplicas are one store per node of a fresh database on the
// test cluster: replicas each writing to its own node.
func GaleraOutboxReplicas(tb testing.TB) []OutboxHarness {
	dsns := MustCreateGaleraDatabase(tb)
	out := make([]OutboxHarness, len(dsns))
	for i, d := range dsns {
		out[i] = gormOutbox(tb, MustOpen(tb, gormstore.MySQL, d, gormstore.Options{}), gormstore.MySQL, d)
		out[i].AllUndispatched = true
		db := mustDB(tb, gormstore.MySQL, d)
		out[i].Certification = func(tb testing.TB) int64 {
			var rows []struct {
				VariableName string `gorm:"column:Variable_name"`
				Value        int64  `gorm:"column:Value"`
			}
			if err := db.Raw("SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')").
				Scan(&rows).Error; err != nil {
				tb.Fatalf("read wsrep status: %v", err)
			}
			var n int64
			for _, r := range rows {
				n += r.Value
			}
			return n
		}
	}
	return out
}

func gormOutboxReplicas(tb testing.TB, driver, dsn string, n int) []OutboxHarness {
	out := make([]OutboxHarness, n)
	for i := range out {
		out[i] = gormOutbox(tb, MustOpen(tb, driver, dsn, gormstore.Options{}), driver, dsn)
	}
	return out
}

// GormOutbox is the harness of st, a migrated store on driver's dsn.
func GormOutbox(tb testing.TB, st *gormstore.Store, driver, dsn string) OutboxHarness {
	return gormOutbox(tb, st, driver, dsn)
}

func gormOutbox(tb testing.TB, st *gormstore.Store, driver, dsn string) OutboxHarness {
	db := mustDB(tb, driver, dsn)
	h := outboxHarness(st)
	h.Conflicts = st.Conflicts
	h.Check = func(tb testing.TB) OutboxCount {
		tb.Helper()
		return OutboxCheck(tb, db, driver)
	}
	h.RefuseEvents = func(tb testing.TB) {
		tb.Helper()
		ddl := `CREATE TRIGGER refuse_events BEFORE INSERT ON report_events
BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`
		if driver == gormstore.MySQL {
			ddl = `CREATE TRIGGER refuse_events BEFORE INSERT ON report_events FOR EACH ROW
SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'`
		}
		if err := db.WithContext(context.Background()).Exec(ddl).Error; err != nil {
			tb.Fatalf("create trigger: %v", err)
		}
	}
	return h
}

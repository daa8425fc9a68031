package gormstore_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMigrationDecisions: a database of the releases before migration 7,
// with reports in it as those releases wrote them (no state, no event),
// is upgraded on SQLite and MariaDB. Its reports read received with no
// decision and list under ?status=received; a decision on one records it
// with its event; a new report has its event; migrating again does
// nothing, and on MariaDB, where each DDL statement commits on its own, a
// run stopped after its statements, before its record, runs again
// cleanly.
func TestMigrationDecisions(t *testing.T) {
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	var before []gormstore.Migration
	for _, m := range gormstore.Migrations() {
		if m.Version < 7 {
			before = append(before, m)
		}
	}
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			d := storetest.SQLitePath(t)
			if driver == gormstore.MySQL {
				d = storetest.MustCreateDatabase(t)
			}
			old := openMigrated(t, driver, d, before)
			db, err := storetest.OpenSQL(driver, d)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			at := time.Now().UTC().Truncate(time.Millisecond)
			for i := range 3 {
				rep, err := cat.MapReport(fixture.Members(fixture.Minimal(at, fmt.Sprintf("CR-PRE7-%d", i))), fixture.FileRules(), at)
				if err != nil {
					t.Fatal(err)
				}
				q, args := gormstore.StagingInsert(driver, cat, domain.StagedReport{Report: rep, ReceivedAt: at, PartnerUser: "acme", PayloadSHA256: "p"})
				if _, err := db.ExecContext(ctx, q, args...); err != nil {
					t.Fatal(err)
				}
			}
			_ = old.Close()

			st := openMigrated(t, driver, d, nil, 7, 8, 9, 10)
			if applied, err := st.Migrate(ctx); err != nil || len(applied) != 0 {
				t.Fatalf("Migrate again = %v, %v; want nothing", applied, err)
			}
			if driver == gormstore.MySQL {
				if _, err := db.ExecContext(ctx, "DELETE FROM schema_migrations WHERE version = 7"); err != nil {
					t.Fatal(err)
				}
				if applied, err := st.Migrate(ctx); err != nil || !slices.Equal(applied, []int{7}) {
					t.Fatalf("Migrate after a run stopped half-way = %v, %v; want [7]", applied, err)
				}
			}
			got, err := st.GetReport(ctx, "acme", 1)
			if err != nil || got.Status != domain.StatusReceived || got.Decision != (domain.Decision{}) {
				t.Fatalf("a report of before: %+v, %v; want received, no decision", got.StoredReceipt, err)
			}
			list, err := st.ListReports(ctx, ports.ReportFilter{User: "acme", Status: domain.StatusReceived, Limit: 10})
			if err != nil || len(list) != 3 {
				t.Fatalf("?status=received = %d, %v; want the 3 reports of before", len(list), err)
			}
			d7 := domain.Decision{Status: domain.StatusAccepted, By: "cli:ops", At: at.Add(time.Second)}
			if r, applied, err := st.Decide(ctx, 1, d7); err != nil || !applied || r.Decision != d7 {
				t.Fatalf("Decide on a report of before = %+v, %v, %v", r, applied, err)
			}
			rep, err := cat.MapReport(fixture.Members(fixture.Minimal(at, "CR-POST7")), fixture.FileRules(), at)
			if err != nil {
				t.Fatal(err)
			}
			rec := domain.IdempotencyRecord{User: "acme", KeyHash: domain.KeyHash("post7", ""), PayloadSHA256: "p", State: domain.KeyDone,
				Nonce: fmt.Sprintf("%032d", 7), CreatedAt: at, ExpiresAt: at.Add(time.Hour)}
			if _, _, err := st.StoreReport(ctx, domain.StagedReport{Report: rep, ReceivedAt: at, PartnerUser: "acme", PayloadSHA256: "p"}, rec); err != nil {
				t.Fatal(err)
			}
			events, err := st.ListEvents(ctx, ports.EventFilter{User: "acme", Before: at.Add(time.Hour), Limit: 10})
			if err != nil || len(events) != 2 || events[0].Type != domain.EventReceived || events[1].Type != domain.EventAccepted {
				t.Fatalf("events after the upgrade: %+v, %v; want the new report's and the decision's", events, err)
			}
		})
	}
}

// openMigrated opens a store of migs (nil: the released ones) on dsn and
// migrates it, checking that it applied want when given.
func openMigrated(t *testing.T, driver, dsn string, migs []gormstore.Migration, want ...int) *gormstore.Store {
	t.Helper()
	st, err := gormstore.Open(driver, dsn, storetest.WithOptions(driver, gormstore.Options{Migrations: migs}), domain.DefaultCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	applied, err := st.Migrate(context.Background())
	if err != nil || want != nil && !slices.Equal(applied, want) {
		t.Fatalf("Migrate = %v, %v; want %v", applied, err, want)
	}
	return st
}

package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
)

// RunLookupsAtSize: on SizeRows reports of one partner, every shape of
// GET /v1/reports (each set of filters the API allows, the first page and
// a page after a cursor, a page of 1 and of 100) reads at most limit + 1
// index entries (contract §10), counted by the database (entryCounter),
// and the page is the one ListReports gives. Nothing here is timed.
func RunLookupsAtSize(t *testing.T, driver string) {
	dsn := SQLitePath(t)
	if driver == gormstore.MySQL {
		dsn = MustCreateDatabase(t)
	}
	st := MustOpen(t, driver, dsn, gormstore.Options{})
	t.Logf("seeded %d rows on %s in %s", SizeRows+SizeOtherRows, driver, SeedAtSize(t, driver, dsn).Round(time.Millisecond))
	counter := newEntryCounter(t, driver, dsn)
	at := func(sec int) time.Time { return SizeBase.Add(time.Duration(sec) * time.Second) }
	day := at(5 * 86400)
	epoch := time.Date(1970, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, tt := range []struct {
		name string
		f    ports.ReportFilter
	}{
		{"all", ports.ReportFilter{}},
		{"the full range (received_from=1970-01-01)", ports.ReportFilter{From: epoch}},
		{"a day", ports.ReportFilter{From: day, To: day.AddDate(0, 0, 1)}},
		{"before a time", ports.ReportFilter{To: at(400_000)}},
		{"from a time", ports.ReportFilter{From: at(450_000)}},
		{"by credit", ports.ReportFilter{CreditNumber: "CR-007"}},
		{"by credit from 1970", ports.ReportFilter{CreditNumber: "CR-007", From: epoch}},
		{"by credit in a day", ports.ReportFilter{CreditNumber: "CR-007", From: day, To: day.AddDate(0, 0, 1)}},
		{"by key", ports.ReportFilter{IdempotencyKey: "k-500000"}},
		{"by key and credit", ports.ReportFilter{IdempotencyKey: "k-500000", CreditNumber: "CR-000"}},
		{"by key in a range", ports.ReportFilter{IdempotencyKey: "k-500000", From: epoch, To: at(300_000)}},
		{"the other partner", ports.ReportFilter{User: SizeOther}},
		{"the other partner from 1970", ports.ReportFilter{User: SizeOther, From: epoch}},
	} {
		for _, limit := range []int{2, 101} {
			t.Run(fmt.Sprintf("%s, limit %d", tt.name, limit), func(t *testing.T) {
				f := tt.f
				if f.User == "" {
					f.User = SizeUser
				}
				f.Limit = limit
				page := checkPage(t, st, counter, f)
				if len(page) == 0 {
					return
				}
				f.After = page[len(page)-1].Position
				next := checkPage(t, st, counter, f)
				// The two pages are the first 2·limit rows, each once.
				whole := f
				whole.After, whole.Limit = ports.ListPosition{}, 2*limit
				both, err := st.ListReports(context.Background(), whole)
				if err != nil {
					t.Fatal(err)
				}
				if a, b := ids(append(page, next...)), ids(both); !slices.Equal(a, b) {
					t.Errorf("a page and the page after its cursor: %v; the first %d rows: %v", a, 2*limit, b)
				}
			})
		}
	}
}

// checkPage lists f through the store and through the counter, and fails
// when they differ or more than f.Limit (the partner's limit + 1) index
// entries were read.
func checkPage(t *testing.T, st *gormstore.Store, c *entryCounter, f ports.ReportFilter) []ports.ListedReceipt {
	t.Helper()
	got, err := st.ListReports(context.Background(), f)
	if err != nil {
		t.Fatal(err)
	}
	query, args := st.ListStatement(f)
	got2, entries, plan := c.count(t, query, args)
	if want := ids(got); !slices.Equal(got2, want) {
		t.Fatalf("the counted statement gave %v, ListReports %v", got2, want)
	}
	bound := int64(f.Limit)
	if c.driver == gormstore.MySQL && f.After.ID > 0 {
		// The entry between a cursor's two ranges is read twice
		// (listQuery); SQLite ends a range before counted() is called.
		bound++
	}
	if entries > bound {
		t.Errorf("after %+v: %d index entries read for a page of %d (limit+1 = %d)\n%s\n%s", f.After, entries, len(got), f.Limit, query, plan)
	} else {
		t.Logf("after %+v: %d entries for %d rows (%s)", f.After.ID, entries, len(got), plan)
	}
	return got
}

func ids(rs []ports.ListedReceipt) []int64 {
	out := make([]int64, len(rs))
	for i, r := range rs {
		out[i] = r.ID
	}
	return out
}

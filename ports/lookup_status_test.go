package ports_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// statusLookup is a hand-written ReportLookup of one partner's receipts,
// ids 1 to n, every fourth accepted and the rest received; it filters as
// a store does and records what each page asked of it.
type statusLookup struct {
	rows  []ports.ListedReceipt
	asked []ports.ReportFilter
}

func newStatusLookup(n int) *statusLookup {
	l := &statusLookup{}
	for id := int64(1); id <= int64(n); id++ {
		st := domain.StatusReceived
		if id%4 == 0 {
			st = domain.StatusAccepted
		}
		at := time.Date(2026, 11, 26, 10, 0, int(id), 0, time.UTC)
		l.rows = append(l.rows, ports.ListedReceipt{StoredReceipt: domain.StoredReceipt{ID: id, CreditNumber: fmt.Sprintf("CR-%d", id%2), ReceivedAt: at, Status: st},
			Position: ports.ListPosition{ReceivedAt: at, ID: id}})
	}
	return l
}

func (l *statusLookup) GetReport(context.Context, string, int64) (domain.StoredReport, error) {
	return domain.StoredReport{}, domain.ErrNotFound
}

func (l *statusLookup) ReportFields(context.Context, string, []int64) (map[int64]*domain.Report, error) {
	return nil, nil
}

func (l *statusLookup) ListReports(_ context.Context, f ports.ReportFilter) ([]ports.ListedReceipt, error) {
	l.asked = append(l.asked, f)
	var out []ports.ListedReceipt
	for _, r := range l.rows {
		if f.After.Before(r.Position) && (f.Status == "" || r.Status == f.Status) &&
			(f.CreditNumber == "" || r.CreditNumber == f.CreditNumber) && len(out) < f.Limit {
			out = append(out, r)
		}
	}
	return out, nil
}

// TestReportQueriesStatusPagesAreBounded: ?status= on a partner's whole
// list reads at most limit + 1 receipts a page, whatever their states
// (contract §10), and shows those in the state: a page may hold fewer
// than limit, or none, with a next cursor; following the cursors shows
// each receipt in the state once, in order. With a credit number, the
// store is asked for the state (the few reports of that credit).
func TestReportQueriesStatusPagesAreBounded(t *testing.T) {
	l := newStatusLookup(10)
	q, err := ports.NewReportQueries(l)
	if err != nil {
		t.Fatal(err)
	}
	var seen []int64
	pages, empty, cursor := 0, 0, ""
	for {
		page, err := q.List(context.Background(), ports.ListQuery{User: "acme", Status: "accepted", Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		pages++
		if len(page.Receipts) == 0 && page.NextCursor != "" {
			empty++
		}
		for _, r := range page.Receipts {
			seen = append(seen, r.ID)
		}
		if cursor = page.NextCursor; cursor == "" {
			break
		}
	}
	if fmt.Sprint(seen) != "[4 8]" || pages != 4 || empty != 1 {
		t.Errorf("status pages: %v over %d pages (%d empty with a cursor); want [4 8] over 4 pages of 3 receipts read, 1 empty", seen, pages, empty)
	}
	for i, f := range l.asked {
		if f.Status != "" || f.Limit != 4 {
			t.Errorf("page %d asked the store for status %q, limit %d; want no status, limit 4", i+1, f.Status, f.Limit)
		}
	}
	l.asked = nil
	page, err := q.List(context.Background(), ports.ListQuery{User: "acme", Status: "accepted", CreditNumber: "CR-0", Limit: 3})
	if err != nil || len(l.asked) != 1 || l.asked[0].Status != domain.StatusAccepted || fmt.Sprint(ids(page)) != "[4 8]" {
		t.Errorf("status with a credit number: %v, asked %+v, %v; want the store asked for accepted, [4 8]", ids(page), l.asked, err)
	}
}

func ids(p ports.Page) []int64 {
	var out []int64
	for _, r := range p.Receipts {
		out = append(out, r.ID)
	}
	return out
}

package ports_test

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// brokenLookup is a store whose look-ups fail.
type brokenLookup struct{}

func (brokenLookup) GetReport(context.Context, string, int64) (domain.StoredReport, error) {
	return domain.StoredReport{}, errors.New("connection refused")
}

func (brokenLookup) ListReports(context.Context, ports.ReportFilter) ([]ports.ListedReceipt, error) {
	return nil, errors.New("connection refused")
}

func (brokenLookup) ReportFields(context.Context, string, []int64) (map[int64]*domain.Report, error) {
	return nil, errors.New("connection refused")
}

func TestNewReportQueriesRefusesNil(t *testing.T) {
	if q, err := ports.NewReportQueries(nil); err == nil || q != nil {
		t.Fatalf("NewReportQueries(nil) = %v, %v; want an error", q, err)
	}
}

// storedReports stores n reports of acme (and one of another partner
// after each) through the use case, and returns acme's ids.
func storedReports(t *testing.T, n int) (*fakes.ReportStore, []int64) {
	t.Helper()
	store, up := fixtures(fakes.NewClock(t0))
	reports := newReports(t, store, up, fakes.NewClock(t0))
	var ids []int64
	for i := range n {
		r, err := reports.Submit(context.Background(), submission(fixture.Minimal(t0, fmt.Sprintf("CR-%d", i)), ""))
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, r.ID)
		other := submission(fixture.Minimal(t0, fmt.Sprintf("CR-%d", i)), "")
		other.Principal.User = "other"
		if _, err := reports.Submit(context.Background(), other); err != nil {
			t.Fatal(err)
		}
	}
	return store, ids
}

func TestReportQueriesGet(t *testing.T) {
	store, ids := storedReports(t, 1)
	q, _ := ports.NewReportQueries(store)
	got, err := q.Get(context.Background(), "acme", ids[0])
	if err != nil || got.ID != ids[0] || got.CreditNumber != "CR-0" || got.Report.Text("numero_credito") != "CR-0" {
		t.Fatalf("Get = %+v, %v", got.StoredReceipt, err)
	}
	_, err = q.Get(context.Background(), "other", ids[0])
	var de *domain.Error
	if !errors.As(err, &de) || !domain.IsKind(err, domain.ErrNotFound) || de.Code != "not_found" {
		t.Fatalf("another partner's report: %v, want ErrNotFound with code not_found", err)
	}
	broken, _ := ports.NewReportQueries(brokenLookup{})
	if _, err := broken.Get(context.Background(), "acme", 1); !domain.IsKind(err, domain.ErrUnavailable) {
		t.Fatalf("a failing store: %v, want ErrUnavailable", err)
	}
	if _, err := broken.List(context.Background(), ports.ListQuery{User: "acme"}); !domain.IsKind(err, domain.ErrUnavailable) {
		t.Fatalf("a failing store: %v, want ErrUnavailable", err)
	}
}

// TestReportQueriesPages: following next_cursor visits every one of the
// partner's reports once, in ascending id, and the last page has none.
func TestReportQueriesPages(t *testing.T) {
	store, ids := storedReports(t, 7)
	q, _ := ports.NewReportQueries(store)
	var seen []int64
	cursor := ""
	for pages := 0; ; pages++ {
		page, err := q.List(context.Background(), ports.ListQuery{User: "acme", Limit: 3, Cursor: cursor})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range page.Receipts {
			seen = append(seen, r.ID)
		}
		if page.NextCursor == "" {
			if pages != 2 || len(page.Receipts) != 1 {
				t.Fatalf("the last page is page %d with %d receipts; want the third, with 1", pages+1, len(page.Receipts))
			}
			break
		}
		cursor = page.NextCursor
	}
	if fmt.Sprint(seen) != fmt.Sprint(ids) {
		t.Fatalf("pages gave %v, want %v", seen, ids)
	}
	// A page that ends exactly at the last report says so.
	page, err := q.List(context.Background(), ports.ListQuery{User: "acme", Limit: 7})
	if err != nil || len(page.Receipts) != 7 || page.NextCursor != "" {
		t.Fatalf("a page of exactly every report: %d receipts, cursor %q, %v", len(page.Receipts), page.NextCursor, err)
	}
	page, err = q.List(context.Background(), ports.ListQuery{User: "acme"})
	if err != nil || len(page.Receipts) != 7 {
		t.Fatalf("the default limit: %d receipts, %v", len(page.Receipts), err)
	}
}

// TestReportQueriesRefuseBadParameters: each bad parameter is refused by
// name (invalid_request), before the store is asked.
func TestReportQueriesRefuseBadParameters(t *testing.T) {
	q, _ := ports.NewReportQueries(brokenLookup{})
	enc := func(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }
	for _, tt := range []struct {
		name  string
		query ports.ListQuery
		param string
	}{
		{"limit 0 is the default, -1 is not", ports.ListQuery{Limit: -1}, "limit"},
		{"limit over 500", ports.ListQuery{Limit: 501}, "limit"},
		{"a credit number that names no file", ports.ListQuery{CreditNumber: "../x"}, "numero_credito"},
		{"a key with a control character", ports.ListQuery{IdempotencyKey: "a\x01"}, "idempotency_key"},
		{"a cursor that is not base64url", ports.ListQuery{Cursor: "!!"}, "cursor"},
		{"a cursor of no number", ports.ListQuery{Cursor: enc("abc")}, "cursor"},
		{"a cursor of an id alone (pages in id order, before 1.1.0)", ports.ListQuery{Cursor: enc("7")}, "cursor"},
		{"a cursor of 0", ports.ListQuery{Cursor: enc("p1.0.0")}, "cursor"},
		{"a cursor with a leading zero", ports.ListQuery{Cursor: enc("p1.1700000000000000000.07")}, "cursor"},
		{"a cursor with a plus", ports.ListQuery{Cursor: enc("p1.+1700000000000000000.7")}, "cursor"},
		{"a negative id", ports.ListQuery{Cursor: enc("p1.1700000000000000000.-7")}, "cursor"},
		{"a cursor without its id", ports.ListQuery{Cursor: enc("p1.1700000000000000000")}, "cursor"},
		{"a cursor of another form", ports.ListQuery{Cursor: enc("p2.1700000000000000000.7")}, "cursor"},
		{"a padded cursor", ports.ListQuery{Cursor: base64.URLEncoding.EncodeToString([]byte("p1.1700000000000000000.77"))}, "cursor"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tt.query.User = "acme"
			_, err := q.List(context.Background(), tt.query)
			var de *domain.Error
			if !errors.As(err, &de) || !domain.IsKind(err, domain.ErrInvalidInput) || de.Code != "invalid_request" || de.Detail != tt.param {
				t.Fatalf("List(%+v) = %v; want invalid_request naming %s", tt.query, err, tt.param)
			}
		})
	}
	// The bounds are told in the domain's words, which the partner guide
	// quotes.
	for param, lq := range map[string]ports.ListQuery{
		"limit": {Limit: 501}, "numero_credito": {CreditNumber: "../x"}, "idempotency_key": {IdempotencyKey: "a\x01"},
	} {
		want := map[string]domain.Bound{"limit": domain.PageLimitBound, "numero_credito": domain.CreditNumberBound,
			"idempotency_key": domain.IdempotencyKeyBound}[param].Es
		lq.User = "acme"
		if _, err := q.List(context.Background(), lq); err == nil || !strings.HasSuffix(err.Error(), param+" inválido: "+want+" ("+param+")") {
			t.Errorf("%s: %v, want the message to end with %q", param, err, want)
		}
	}
}

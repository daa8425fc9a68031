package ports_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestReportQueriesListFields: a page asked with its fields carries each
// receipt's report, in the page's order, from the partner's own rows; a
// page without them carries none; a limit over domain.PageFieldsMax is
// refused naming limit, as the limit of a plain page is not.
func TestReportQueriesListFields(t *testing.T) {
	store, ids := storedReports(t, 5)
	q, _ := ports.NewReportQueries(store)
	ctx := context.Background()
	page, err := q.List(ctx, ports.ListQuery{User: "acme", Limit: 3, Fields: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Receipts) != 3 || len(page.Reports) != 3 || page.NextCursor == "" {
		t.Fatalf("%d receipts, %d reports, cursor %q; want 3, 3 and a next page", len(page.Receipts), len(page.Reports), page.NextCursor)
	}
	for i, r := range page.Receipts {
		if r.ID != ids[i] || page.Reports[i].Text("numero_credito") != fmt.Sprintf("CR-%d", i) {
			t.Fatalf("receipt %d is report %d with credit %q; want %d with CR-%d", i, r.ID, page.Reports[i].Text("numero_credito"), ids[i], i)
		}
	}
	plain, err := q.List(ctx, ports.ListQuery{User: "acme", Limit: 3})
	if err != nil || plain.Reports != nil {
		t.Fatalf("a page without fields: %v reports, %v", plain.Reports, err)
	}
	if _, err := q.List(ctx, ports.ListQuery{User: "acme", Limit: domain.PageFieldsMax, Fields: true}); err != nil {
		t.Fatalf("limit %d with fields: %v", domain.PageFieldsMax, err)
	}
	_, err = q.List(ctx, ports.ListQuery{User: "acme", Limit: domain.PageFieldsMax + 1, Fields: true})
	var de *domain.Error
	if !domain.IsKind(err, domain.ErrInvalidInput) || !errors.As(err, &de) || de.Detail != "limit" {
		t.Fatalf("limit %d with fields: %v; want invalid input naming limit", domain.PageFieldsMax+1, err)
	}
	if _, err := q.List(ctx, ports.ListQuery{User: "acme", Limit: domain.PageFieldsMax + 1}); err != nil {
		t.Fatalf("limit %d without fields: %v", domain.PageFieldsMax+1, err)
	}
	broken, _ := ports.NewReportQueries(brokenLookup{})
	if _, err := broken.List(ctx, ports.ListQuery{User: "acme", Fields: true}); !domain.IsKind(err, domain.ErrUnavailable) {
		t.Fatalf("a failing store: %v, want ErrUnavailable", err)
	}
}

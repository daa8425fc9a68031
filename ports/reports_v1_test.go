package ports_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// TestSubmitReceiptToTheMillisecond: a stored report's receipt has its
// credit number, its Idempotency-Key and its receipt time truncated to
// the millisecond, the time its row keeps.
func TestSubmitReceiptToTheMillisecond(t *testing.T) {
	clock := fakes.NewClock(t0.Add(123456789 * time.Nanosecond))
	store, up := fixtures(clock)
	r, err := newReports(t, store, up, clock).Submit(context.Background(), submission(fixture.Minimal(t0, "CR-MS-1"), "key-1"))
	if err != nil {
		t.Fatal(err)
	}
	want := t0.Add(123 * time.Millisecond)
	if !r.ReceivedAt.Equal(want) || r.CreditNumber != "CR-MS-1" || r.IdempotencyKey != "key-1" {
		t.Fatalf("receipt = %+v; want received at %s, CR-MS-1, key-1", r, want)
	}
	if row, _ := store.Row(r.ID); !row.ReceivedAt.Equal(want) {
		t.Fatalf("the row says %s, the receipt %s", row.ReceivedAt, r.ReceivedAt)
	}
}

// TestValidateStoresNothing: Validate finds what Submit would refuse,
// reads money as the submission says, and keeps no row, file or record.
func TestValidateStoresNothing(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	reports := newReports(t, store, up, clock)
	sub := submission(withFile("CR-VAL-1"), "key-1")
	if err := reports.Validate(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	body := fixture.Minimal(t0, "CR-VAL-2")
	body["Monto Aprobado"] = json.Number("14334900.00")
	sub = submission(body, "")
	if err := reports.Validate(context.Background(), sub); err != nil {
		t.Fatalf("the legacy reading takes a number: %v", err)
	}
	sub.Read = domain.MapOptions{DecimalsAsStrings: true}
	err := reports.Validate(context.Background(), sub)
	if ps := problemsOf(err); len(ps) != 1 || ps[0].Code != domain.CodeNumberNotAllowed || ps[0].Field != "Monto Aprobado" {
		t.Fatalf("a number read as /v1 reads it: %v", err)
	}
	if _, err := reports.Submit(context.Background(), sub); len(problemsOf(err)) != 1 {
		t.Fatalf("Submit reads it the same way: %v", err)
	}
	if store.Count() != 0 || store.Keys() != 0 || up.Count() != 0 {
		t.Fatalf("kept %d rows, %d records, %d files", store.Count(), store.Keys(), up.Count())
	}
}

func problemsOf(err error) []domain.Problem {
	var de *domain.Error
	if errors.As(err, &de) {
		return de.Problems
	}
	return nil
}

// TestLoadV1BodyIsAReport: the body of the load tool's /v1 workloads (W1's
// full report with money and rates as strings) is a report as /v1 reads
// it, and the same report as W1's.
func TestLoadV1BodyIsAReport(t *testing.T) {
	cat := domain.DefaultCatalogue()
	legacy := fixture.FullBody(t0, "CR-LOAD-1", nil)
	v1 := fixture.DecimalsAsStrings(legacy)
	a, err := cat.MapReportWith(fixture.Members(v1), fixture.FileRules(), t0, domain.MapOptions{DecimalsAsStrings: true})
	if err != nil {
		t.Fatal(err)
	}
	b, err := cat.MapReport(fixture.Members(legacy), fixture.FileRules(), t0)
	if err != nil {
		t.Fatal(err)
	}
	if cat.Identity(a) != cat.Identity(b) {
		t.Fatal("the /v1 body is another report than W1's")
	}
}

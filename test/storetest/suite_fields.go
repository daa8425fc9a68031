package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// testLookupFields: the fields of a page of ids read back as GetReport
// reads each, only the partner's own; another partner's id, or one not
// stored, is left out.
func testLookupFields(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	var mine []int64
	store := func(user, credit string) int64 {
		rep, err := cat.MapReport(fixture.Members(fixture.FullBody(now, credit, nil)), fixture.FileRules(), now)
		if err != nil {
			t.Fatal(err)
		}
		id, _, err := h.Store.StoreReport(ctx, domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: user,
			IdempotencyKey: credit, PayloadSHA256: fmt.Sprintf("%064x", len(credit))}, record(user, credit, now))
		if err != nil {
			t.Fatal(err)
		}
		return id
	}
	for i := range 3 {
		mine = append(mine, store("acme", fmt.Sprintf("CR-FIELDS-%d", i)))
	}
	theirs := store("other", "CR-FIELDS-X")
	got, err := h.Lookup.ReportFields(ctx, "acme", []int64{mine[2], theirs, mine[0], mine[2] + 1000, mine[1]})
	if err != nil {
		t.Fatal(err)
	}
	keys := make([]int64, 0, len(got))
	for id := range got {
		keys = append(keys, id)
	}
	slices.Sort(keys)
	if fmt.Sprint(keys) != fmt.Sprint(mine) {
		t.Fatalf("fields of %v; want %v (acme's only)", keys, mine)
	}
	for i, id := range mine {
		one, err := h.Lookup.GetReport(ctx, "acme", id)
		if err != nil {
			t.Fatal(err)
		}
		if got[id].Text("numero_credito") != fmt.Sprintf("CR-FIELDS-%d", i) || got[id].Len() != one.Report.Len() {
			t.Fatalf("report %d: credit %q, %d fields; GetReport reads %d", id, got[id].Text("numero_credito"), got[id].Len(), one.Report.Len())
		}
		for j, f := range cat.Fields {
			a, okA := one.Report.At(j)
			b, okB := got[id].At(j)
			if okA != okB || okA && domain.StoredForm(f, a) != domain.StoredForm(f, b) {
				t.Errorf("report %d %s: GetReport %q (%v), ReportFields %q (%v)", id, f.Internal, domain.StoredForm(f, a), okA, domain.StoredForm(f, b), okB)
			}
		}
	}
	if got, err := h.Lookup.ReportFields(ctx, "other", mine); err != nil || len(got) != 0 {
		t.Fatalf("another partner asking for acme's ids: %d reports, %v", len(got), err)
	}
}

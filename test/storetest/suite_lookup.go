package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
)

// runLookups: a partner reads back its own reports, and only its own, as
// they were stored (ports.ReportLookup).
func runLookups(t *testing.T, open func(testing.TB) Harness, now time.Time) {
	ctx := context.Background()
	cat := domain.DefaultCatalogue()

	t.Run("a report reads back as it was stored", func(t *testing.T) {
		h := open(t)
		body := fixture.FullBody(now, "CR-LOOK-1", nil)
		rep, err := cat.MapReport(fixture.Members(body), fixture.FileRules(), now)
		if err != nil {
			t.Fatal(err)
		}
		staged := domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PartnerNIT: "900123456-8",
			FileName: "partner_CR-LOOK-1_x.pdf", FileSize: 10, FileSHA256: fmt.Sprintf("%064x", 1),
			IdempotencyKey: "k-look-1", PayloadSHA256: fmt.Sprintf("%064x", 2)}
		id, _, err := h.Store.StoreReport(ctx, staged, record("acme", "k-look-1", now))
		if err != nil {
			t.Fatal(err)
		}
		got, err := h.Lookup.GetReport(ctx, "acme", id)
		if err != nil {
			t.Fatal(err)
		}
		want := domain.StoredReceipt{ID: id, CreditNumber: "CR-LOOK-1", FileName: staged.FileName, ReceivedAt: now, IdempotencyKey: "k-look-1",
			Status: domain.StatusReceived}
		if got.StoredReceipt != want {
			t.Fatalf("receipt = %+v, want %+v", got.StoredReceipt, want)
		}
		if got.Report.Len() != rep.Len() {
			t.Errorf("%d fields read back, %d stored", got.Report.Len(), rep.Len())
		}
		for i, f := range cat.Fields {
			a, okA := rep.At(i)
			b, okB := got.Report.At(i)
			if okA != okB || okA && domain.StoredForm(f, a) != domain.StoredForm(f, b) {
				t.Errorf("%s: stored %q (%v), read back %q (%v)", f.Internal, domain.StoredForm(f, a), okA, domain.StoredForm(f, b), okB)
			}
		}
		// Exact: a money value is its decimal, not a float's neighbour.
		if v, _ := got.Report.Get("monto_aprobado"); v.Dec != (domain.Decimal{Units: 1433490000, Scale: 2}) {
			t.Errorf("monto_aprobado = %+v", v.Dec)
		}
	})

	t.Run("another partner's report is not found", func(t *testing.T) {
		h := open(t)
		rep := minimalReport(t, now)
		id, _, err := h.Store.StoreReport(ctx, domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PayloadSHA256: "p"}, record("acme", "k", now))
		if err != nil {
			t.Fatal(err)
		}
		for _, tt := range []struct {
			user string
			id   int64
		}{{"other", id}, {"ACME", id}, {"acme ", id}, {"acme", id + 1000}, {"acme", 0}, {"acme", -1}} {
			if _, err := h.Lookup.GetReport(ctx, tt.user, tt.id); !errors.Is(err, domain.ErrNotFound) {
				t.Errorf("GetReport(%q, %d) = %v, want ErrNotFound", tt.user, tt.id, err)
			}
		}
		got, err := h.Lookup.GetReport(ctx, "acme", id)
		if err != nil || got.IdempotencyKey != "" || got.FileName != "" {
			t.Fatalf("an unkeyed report without a file: %+v, %v", got.StoredReceipt, err)
		}
	})

	t.Run("list filters and pages", func(t *testing.T) {
		h := open(t)
		rep := func(credit string) *domain.Report {
			r, err := cat.MapReport(minimalMembers(now, credit), fixture.FileRules(), now)
			if err != nil {
				t.Fatal(err)
			}
			return r
		}
		base := now.Add(-time.Hour)
		// Rows of acme and of others, interleaved, one millisecond apart
		// from a base: row i is received at base + i ms.
		type row struct {
			user, credit, key string
		}
		rows := []row{{"acme", "CR-A", "k1"}, {"other", "CR-A", "k1"}, {"acme", "CR-B", ""}, {"acme", "CR-A", "k2"},
			{"ACME", "CR-A", "k3"}, {"acme", "CR-C", "k3"}, {"other", "CR-B", ""}, {"acme", "CR-A", ""}}
		ids := make([]int64, len(rows))
		for i, r := range rows {
			key := r.key
			if key == "" {
				key = fmt.Sprintf("unkeyed-%d", i)
			}
			id, _, err := h.Store.StoreReport(ctx, domain.StagedReport{Report: rep(r.credit), ReceivedAt: base.Add(time.Duration(i) * time.Millisecond),
				PartnerUser: r.user, IdempotencyKey: r.key, PayloadSHA256: "p"}, record(r.user, key, now))
			if err != nil {
				t.Fatal(err)
			}
			ids[i] = id
		}
		at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Millisecond) }
		pos := func(i int) ports.ListPosition { return ports.ListPosition{ReceivedAt: at(i), ID: ids[i]} }
		for _, tt := range []struct {
			name string
			f    ports.ReportFilter
			want []int // indexes into rows
		}{
			{"all of acme", ports.ReportFilter{User: "acme"}, []int{0, 2, 3, 5, 7}},
			{"a page", ports.ReportFilter{User: "acme", Limit: 2}, []int{0, 2}},
			{"after a position", ports.ReportFilter{User: "acme", After: pos(2), Limit: 2}, []int{3, 5}},
			{"by credit", ports.ReportFilter{User: "acme", CreditNumber: "CR-A"}, []int{0, 3, 7}},
			{"by credit after a position", ports.ReportFilter{User: "acme", CreditNumber: "CR-A", After: pos(0)}, []int{3, 7}},
			{"a position before from", ports.ReportFilter{User: "acme", From: at(3), After: pos(0)}, []int{3, 5, 7}},
			{"a range after a position", ports.ReportFilter{User: "acme", From: at(1), To: at(7), After: pos(3)}, []int{5}},
			{"by key", ports.ReportFilter{User: "acme", IdempotencyKey: "k3"}, []int{5}},
			{"by key, byte for byte", ports.ReportFilter{User: "acme", IdempotencyKey: "K3"}, nil},
			{"from, inclusive", ports.ReportFilter{User: "acme", From: at(3)}, []int{3, 5, 7}},
			{"to, exclusive", ports.ReportFilter{User: "acme", To: at(3)}, []int{0, 2}},
			{"a range", ports.ReportFilter{User: "acme", From: at(2), To: at(6)}, []int{2, 3, 5}},
			{"a range and a credit", ports.ReportFilter{User: "acme", CreditNumber: "CR-A", From: at(1), To: at(8)}, []int{3, 7}},
			{"an empty range", ports.ReportFilter{User: "acme", From: at(6), To: at(6)}, nil},
			{"another partner", ports.ReportFilter{User: "other"}, []int{1, 6}},
			{"a name that differs in case", ports.ReportFilter{User: "ACME"}, []int{4}},
			{"nobody", ports.ReportFilter{User: "nobody"}, nil},
		} {
			t.Run(tt.name, func(t *testing.T) {
				if tt.f.Limit == 0 {
					tt.f.Limit = 100
				}
				got, err := h.Lookup.ListReports(ctx, tt.f)
				if err != nil {
					t.Fatal(err)
				}
				if len(got) != len(tt.want) {
					t.Fatalf("%d receipts %+v, want rows %v", len(got), got, tt.want)
				}
				for j, i := range tt.want {
					r := rows[i]
					want := domain.StoredReceipt{ID: ids[i], CreditNumber: r.credit, ReceivedAt: at(i), IdempotencyKey: r.key, Status: domain.StatusReceived}
					if got[j].StoredReceipt != want || got[j].Position.ID != ids[i] || !got[j].Position.ReceivedAt.Equal(at(i)) {
						t.Errorf("receipt %d = %+v, want %+v at %+v", j, got[j], want, pos(i))
					}
				}
			})
		}
	})
}

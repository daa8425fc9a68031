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

// The look-ups: a partner reads back its own reports, and only its own,
// as they were stored (ports.ReportLookup).

// testLookupReadsBack: a report reads back as it was stored.
func testLookupReadsBack(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
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
}

// testLookupOtherPartner: another partner's report is not found.
func testLookupOtherPartner(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
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
}

// testListFiltersAndPages: list filters and pages.
func testListFiltersAndPages(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
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
}

// Support's archive: support reads back any partner's reports, with what
// the staging table keeps beside them, newest first (ports.ReportArchive).

// testArchiveReadsAny: support reads any partner's report.
func testArchiveReadsAny(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	rep, err := cat.MapReport(fixture.Members(fixture.FullBody(now, "CR-ARCH-1", nil)), fixture.FileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	staged := domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "other", PartnerNIT: "8300537006",
		FileName: "partner_CR-ARCH-1_x.pdf", FileSize: 1234, FileSHA256: fmt.Sprintf("%064x", 7),
		RequestID: "0123456789abcdef0123", IdempotencyKey: "k-arch-1", PayloadSHA256: fmt.Sprintf("%064x", 8)}
	id, _, err := h.Store.StoreReport(ctx, staged, record("other", "k-arch-1", now))
	if err != nil {
		t.Fatal(err)
	}
	got, err := h.Archive.FindReport(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	want := domain.ReportRecord{StoredReceipt: domain.StoredReceipt{ID: id, CreditNumber: "CR-ARCH-1", FileName: staged.FileName,
		ReceivedAt: now, IdempotencyKey: "k-arch-1", Status: domain.StatusReceived}, PartnerUser: "other", PartnerNIT: "8300537006",
		RequestID: staged.RequestID, FileSize: 1234, FileSHA256: staged.FileSHA256}
	if got.ReportRecord != want {
		t.Fatalf("record = %+v, want %+v", got.ReportRecord, want)
	}
	for i, f := range cat.Fields {
		a, okA := rep.At(i)
		b, okB := got.Report.At(i)
		if okA != okB || okA && domain.StoredForm(f, a) != domain.StoredForm(f, b) {
			t.Errorf("%s: stored %q (%v), read back %q (%v)", f.Internal, domain.StoredForm(f, a), okA, domain.StoredForm(f, b), okB)
		}
	}
	for _, missing := range []int64{id + 1000, 0, -1} {
		if _, err := h.Archive.FindReport(ctx, missing); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("FindReport(%d) = %v, want ErrNotFound", missing, err)
		}
	}
	// The partner's own look-up stays the partner's.
	if _, err := h.Lookup.GetReport(ctx, "acme", id); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("acme's GetReport of other's report: %v, want ErrNotFound", err)
	}
}

// testArchiveListsNewestFirst: support lists every partner newest first.
func testArchiveListsNewestFirst(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	base := now.Add(-time.Hour)
	type row struct{ user, credit, key string }
	rows := []row{{"acme", "CR-A", "k1"}, {"other", "CR-A", "k1"}, {"acme", "CR-B", ""}, {"acme", "CR-A", "k2"},
		{"other", "CR-C", ""}, {"acme", "CR-C", "k3"}}
	ids := make([]int64, len(rows))
	at := func(i int) time.Time { return base.Add(time.Duration(i) * time.Millisecond) }
	for i, r := range rows {
		rep, err := cat.MapReport(minimalMembers(now, r.credit), fixture.FileRules(), now)
		if err != nil {
			t.Fatal(err)
		}
		key := r.key
		if key == "" {
			key = fmt.Sprintf("unkeyed-%d", i)
		}
		ids[i], _, err = h.Store.StoreReport(ctx, domain.StagedReport{Report: rep, ReceivedAt: at(i), PartnerUser: r.user,
			IdempotencyKey: r.key, RequestID: fmt.Sprintf("req-%d", i), PayloadSHA256: "p"}, record(r.user, key, now))
		if err != nil {
			t.Fatal(err)
		}
	}
	for _, tt := range []struct {
		name string
		f    ports.ArchiveFilter
		want []int // indexes into rows, newest first
	}{
		{"every partner", ports.ArchiveFilter{}, []int{5, 4, 3, 2, 1, 0}},
		{"a page", ports.ArchiveFilter{Limit: 2}, []int{5, 4}},
		{"before an id", ports.ArchiveFilter{BeforeID: ids[4], Limit: 2}, []int{3, 2}},
		{"one partner", ports.ArchiveFilter{User: "other"}, []int{4, 1}},
		{"one partner before an id", ports.ArchiveFilter{User: "acme", BeforeID: ids[3]}, []int{2, 0}},
		{"a credit, every partner", ports.ArchiveFilter{CreditNumber: "CR-A"}, []int{3, 1, 0}},
		{"a credit of one partner", ports.ArchiveFilter{User: "other", CreditNumber: "CR-A"}, []int{1}},
		{"a key of one partner", ports.ArchiveFilter{User: "acme", IdempotencyKey: "k1"}, []int{0}},
		{"a range, every partner", ports.ArchiveFilter{From: at(1), To: at(4)}, []int{3, 2, 1}},
		{"a range of one partner", ports.ArchiveFilter{User: "acme", From: at(1), To: at(4)}, []int{3, 2}},
		{"a range and a credit", ports.ArchiveFilter{CreditNumber: "CR-C", From: at(5)}, []int{5}},
		{"nobody", ports.ArchiveFilter{User: "nobody"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.f.Limit == 0 {
				tt.f.Limit = 100
			}
			got, err := h.Archive.FindReports(ctx, tt.f)
			if err != nil {
				t.Fatal(err)
			}
			if len(got) != len(tt.want) {
				t.Fatalf("%d records %+v, want rows %v", len(got), got, tt.want)
			}
			for j, i := range tt.want {
				r := rows[i]
				want := domain.ReportRecord{StoredReceipt: domain.StoredReceipt{ID: ids[i], CreditNumber: r.credit, ReceivedAt: at(i),
					IdempotencyKey: r.key, Status: domain.StatusReceived}, PartnerUser: r.user, RequestID: fmt.Sprintf("req-%d", i)}
				if got[j] != want {
					t.Errorf("record %d = %+v, want %+v", j, got[j], want)
				}
			}
		})
	}
	if _, err := h.Archive.FindReports(ctx, ports.ArchiveFilter{IdempotencyKey: "k1", Limit: 10}); err == nil {
		t.Error("a key without a partner: no error")
	}
}

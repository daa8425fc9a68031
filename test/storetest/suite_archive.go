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

// runArchive: support reads back any partner's reports, with what the
// staging table keeps beside them, newest first (ports.ReportArchive).
func runArchive(t *testing.T, open func(testing.TB) Harness, now time.Time) {
	ctx := context.Background()
	cat := domain.DefaultCatalogue()

	t.Run("support reads any partner's report", func(t *testing.T) {
		h := open(t)
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
	})

	t.Run("support lists every partner newest first", func(t *testing.T) {
		h := open(t)
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
	})
}

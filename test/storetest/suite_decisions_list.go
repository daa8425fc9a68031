package storetest

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

func testListByStatus(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	base := outboxNow().Add(-time.Hour)
	// Report i of acme, received at base + i ms: i%3 == 1 accepted,
	// i%3 == 2 rejected; credit numbers CR-A and CR-B alternate. Another
	// partner's reports are all rejected.
	want := map[domain.ReportStatus][]int64{}
	wantCredit := map[domain.ReportStatus][]int64{}
	for i := range 30 {
		credit := []string{"CR-A", "CR-B"}[i%2]
		id := storeOutboxReport(t, h, "acme", credit, base.Add(time.Duration(i)*time.Millisecond))
		other := storeOutboxReport(t, h, "other", credit, base.Add(time.Duration(i)*time.Millisecond))
		if _, _, err := h.Decisions.Decide(ctx, other, rejected("no", base)); err != nil {
			t.Fatal(err)
		}
		st := domain.Statuses[i%3]
		switch st {
		case domain.StatusAccepted:
			_, _, err := h.Decisions.Decide(ctx, id, accepted(base))
			if err != nil {
				t.Fatal(err)
			}
		case domain.StatusRejected:
			if _, _, err := h.Decisions.Decide(ctx, id, rejected("no", base)); err != nil {
				t.Fatal(err)
			}
		}
		want[st] = append(want[st], id)
		if credit == "CR-A" {
			wantCredit[st] = append(wantCredit[st], id)
		}
	}
	for _, st := range domain.Statuses {
		for _, credit := range []string{"", "CR-A"} {
			t.Run(fmt.Sprintf("%s %s", st, credit), func(t *testing.T) {
				f := ports.ReportFilter{User: "acme", Status: st, CreditNumber: credit, Limit: 4}
				var got []int64
				for {
					page, err := h.Lookup.ListReports(ctx, f)
					if err != nil {
						t.Fatal(err)
					}
					for _, r := range page {
						if r.Status != st {
							t.Fatalf("report %d is %s in the list of %s", r.ID, r.Status, st)
						}
						got = append(got, r.ID)
					}
					if len(page) < f.Limit {
						break
					}
					f.After = page[len(page)-1].Position
				}
				w := want[st]
				if credit != "" {
					w = wantCredit[st]
				}
				if !slices.Equal(got, w) {
					t.Fatalf("pages of %s: %v, want %v", st, got, w)
				}
			})
		}
	}
}

func testArchiveShowsDecision(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow()
	id := storeOutboxReport(t, h, "acme", "CR-SHOW", at)
	d := rejected("Falta el pagaré", at.Add(time.Minute))
	if _, _, err := h.Decisions.Decide(ctx, id, d); err != nil {
		t.Fatal(err)
	}
	got, err := h.Archive.FindReport(ctx, id)
	if err != nil || got.Decision != d || got.Status != domain.StatusRejected || got.Decision.By != "backoffice:core" {
		t.Fatalf("FindReport = %+v, %v; want the decision %+v with who made it", got.ReportRecord, err, d)
	}
	list, err := h.Archive.FindReports(ctx, ports.ArchiveFilter{CreditNumber: "CR-SHOW", Limit: 5})
	if err != nil || len(list) != 1 || list[0].Decision != d {
		t.Fatalf("FindReports = %+v, %v", list, err)
	}
}

func testPurgedReportsHideEvents(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow()
	old := storeOutboxReport(t, h, "acme", "CR-OLD", at.Add(-time.Hour))
	kept := storeOutboxReport(t, h, "acme", "CR-KEPT", at)
	if _, _, err := h.Decisions.Decide(ctx, old, accepted(at)); err != nil {
		t.Fatal(err)
	}
	// A replay's receipt (StoredReceipt) is the row's as stored now, its
	// decision included: the one a look-up shows.
	looked, err := h.Lookup.GetReport(ctx, "acme", old)
	if got, gerr := h.Reports.StoredReceipt(ctx, old); err != nil || gerr != nil || got != looked.StoredReceipt || got.Status != domain.StatusAccepted {
		t.Fatalf("StoredReceipt of a decided report = %+v, %v; want the look-up's %+v (%v)", got, gerr, looked.StoredReceipt, err)
	}
	before := allEvents(t, h, "acme")
	if len(before) != 3 {
		t.Fatalf("%d events before the purge, want 3", len(before))
	}
	rows, err := h.Purge.ReportsAfter(ctx, 0, 10)
	if err != nil || len(rows) != 2 {
		t.Fatalf("ReportsAfter = %+v, %v", rows, err)
	}
	if n, err := h.Purge.DeleteReports(ctx, rows[:1]); err != nil || n != 1 || rows[0].ID != old {
		t.Fatalf("DeleteReports = %d, %v", n, err)
	}
	if _, err := h.Reports.StoredReceipt(ctx, old); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("StoredReceipt of a purged report = %v; want ErrNotFound", err)
	}
	after := allEvents(t, h, "acme")
	if len(after) != 1 || after[0].Receipt.ID != kept {
		t.Fatalf("events after the purge: %+v; want the kept report's only", after)
	}
	for _, e := range before {
		_, err := h.Events.GetEvent(ctx, "acme", ports.EventPosition{CreatedAt: e.CreatedAt, Seq: e.Seq})
		if gone := e.Receipt.ID == old; gone != errors.Is(err, domain.ErrNotFound) {
			t.Errorf("GetEvent of %s (report %d purged: %v) = %v", e.ID(), e.Receipt.ID, gone, err)
		}
	}
	if _, _, err := h.Decisions.Decide(ctx, old, rejected("tarde", at)); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a decision on a purged report = %v; want ErrNotFound", err)
	}
}

package storetest

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
)

// testArchiveListsInReceiptOrder: support's list has the partner's
// look-up's order, (received_at, id), newest first, not the ids' order
// (a batch may store a report received earlier after one received
// later), and a page before a report goes on from that report's place,
// with and without a partner and a credit number.
func testArchiveListsInReceiptOrder(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	base := now.Add(-time.Hour)
	// Stored in this order (ids ascending); received at base + ms.
	ms := []int{2, 0, 1, 1}
	ids := make([]int64, len(ms))
	for i, m := range ms {
		rep, err := cat.MapReport(minimalMembers(now, "CR-ORDER"), fixture.FileRules(), now)
		if err != nil {
			t.Fatal(err)
		}
		key := fmt.Sprintf("order-%d", i)
		ids[i], _, err = h.Store.StoreReport(ctx, domain.StagedReport{Report: rep, ReceivedAt: base.Add(time.Duration(m) * time.Millisecond),
			PartnerUser: "ordered", IdempotencyKey: key, RequestID: key, PayloadSHA256: "p"}, record("ordered", key, now))
		if err != nil {
			t.Fatal(err)
		}
	}
	// Newest first: received at +2 (ids[0]), then the two at +1 by id
	// descending (ids[3], ids[2]), then +0 (ids[1]).
	want := []int64{ids[0], ids[3], ids[2], ids[1]}
	for _, tt := range []struct {
		name string
		f    ports.ArchiveFilter
	}{
		{"one partner", ports.ArchiveFilter{User: "ordered"}},
		{"a credit, every partner", ports.ArchiveFilter{CreditNumber: "CR-ORDER"}},
		{"a credit of one partner", ports.ArchiveFilter{User: "ordered", CreditNumber: "CR-ORDER"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := tt.f
			var got []int64
			f.Limit = 2
			for range 3 {
				page, err := h.Archive.FindReports(ctx, f)
				if err != nil {
					t.Fatal(err)
				}
				for _, r := range page {
					got = append(got, r.ID)
				}
				if len(page) < f.Limit {
					break
				}
				f.BeforeID = page[len(page)-1].ID
			}
			if !slices.Equal(got, want) {
				t.Errorf("pages %v, want %v", got, want)
			}
		})
	}
}

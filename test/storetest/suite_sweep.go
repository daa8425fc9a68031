package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The store's side of the crash sweep: which files rows name, the rows
// with files page by page, and the purge of expired records in bounded
// batches.

// testSweepNamedFiles: sweep: named files and rows with files.
func testSweepNamedFiles(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	var ids []int64
	for i := 0; i < 7; i++ {
		at := now.Add(time.Duration(i-7) * time.Hour)
		r := staged(t, "acme", fmt.Sprintf("CR-SWEEP-%d", i), at)
		r.ReceivedAt = at
		if i != 3 {
			r.FileName, r.FileSize, r.FileSHA256 = fmt.Sprintf("partner_CR-SWEEP-%d_x.pdf", i), 10, fmt.Sprintf("%064d", i)
		}
		rec := record("acme", fmt.Sprintf("sweep-%d", i), at)
		id, _, err := h.Store.StoreReport(ctx, r, rec)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, id)
	}
	named, err := h.Sweep.NamedFiles(ctx, []string{"partner_CR-SWEEP-1_x.pdf", "partner_CR-SWEEP-3_x.pdf", "partner_nobody.pdf", "partner_CR-SWEEP-6_x.pdf"})
	if err != nil {
		t.Fatal(err)
	}
	if len(named) != 2 || !named["partner_CR-SWEEP-1_x.pdf"] || !named["partner_CR-SWEEP-6_x.pdf"] {
		t.Fatalf("NamedFiles = %v", named)
	}
	// Every row with a file, two at a time.
	var got []int64
	for after := int64(0); ; {
		rows, err := h.Sweep.FileRows(ctx, after, 2)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			got = append(got, r.ID)
			after = r.ID
		}
		if len(rows) < 2 {
			break
		}
	}
	if len(got) != 6 || got[5] != ids[6] {
		t.Fatalf("FileRows over all: %v, want the 6 rows with files", got)
	}
	rows, err := h.Sweep.FileRows(ctx, ids[4], 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 2 || rows[0].ID != ids[5] || rows[1].FileName != "partner_CR-SWEEP-6_x.pdf" {
		t.Fatalf("FileRows after row %d = %+v, want rows %d and %d", ids[4], rows, ids[5], ids[6])
	}
	if !rows[0].ReceivedAt.Equal(now.Add(-2 * time.Hour)) {
		t.Fatalf("received_at = %v, want %v", rows[0].ReceivedAt, now.Add(-2*time.Hour))
	}
}

// testSweepPurgesKeys: sweep: expired records purged in bounded batches.
func testSweepPurgesKeys(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	for i := 0; i < 5; i++ {
		rec := record("acme", fmt.Sprintf("old-%d", i), now.Add(-48*time.Hour))
		if i == 4 {
			rec = record("acme", "fresh", now)
		}
		if _, _, err := h.Store.StoreReport(ctx, staged(t, "acme", fmt.Sprintf("CR-OLD-%d", i), now), rec); err != nil {
			t.Fatal(err)
		}
	}
	if p, e, err := h.Sweep.PurgeKeys(ctx, now.Add(-time.Minute), now, 2, false); err != nil || p != 0 || e != 4 {
		t.Fatalf("dry run = %d pending, %d expired, %v; want 0, 4", p, e, err)
	}
	var total int64
	for round := 0; ; round++ {
		p, e, err := h.Sweep.PurgeKeys(ctx, now.Add(-time.Minute), now, 3, true)
		if err != nil {
			t.Fatal(err)
		}
		if p+e > 3 {
			t.Fatalf("round %d deleted %d, over the limit 3", round, p+e)
		}
		total += e
		if p+e < 3 {
			break
		}
	}
	if total != 4 {
		t.Fatalf("purged %d, want 4", total)
	}
	if _, err := h.Store.GetKey(ctx, "acme", record("acme", "fresh", now).KeyHash); err != nil {
		t.Fatalf("the fresh record went too: %v", err)
	}
	if _, err := h.Store.GetKey(ctx, "acme", record("acme", "old-0", now).KeyHash); err == nil {
		t.Fatal("an expired record is still there")
	}
	if c, _ := h.Count(ctx); c != 5 {
		t.Fatalf("%d rows: purging records must keep the reports", c)
	}
}

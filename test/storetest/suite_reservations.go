package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// The file reservations: the store decides a file's fate as it decides
// its row. A stored report reserves its file name, the sweep's tombstone
// takes a name no report has reserved, and whichever comes first wins.

// testTombstoneRefusesReport: reservations: a tombstone refuses the report that would name its file.
func testTombstoneRefusesReport(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	r := withFile(t, "CR-TOMB-1", now)
	gone, err := h.Sweep.TombstoneFile(ctx, r.FileName)
	if err != nil || !gone {
		t.Fatalf("TombstoneFile of an unreserved name = %v, %v; want true", gone, err)
	}
	rec := record("acme", "tomb-1", now)
	_, _, err = h.Store.StoreReport(ctx, r, rec)
	if err == nil || errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrOutcomeUnknown) {
		t.Fatalf("StoreReport naming a tombstoned file = %v; want a plain error (nothing stored)", err)
	}
	if c, _ := h.Count(ctx); c != 0 {
		t.Fatalf("%d rows, want 0", c)
	}
	if _, err := h.Store.GetKey(ctx, "acme", rec.KeyHash); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("the refused report left its record: %v", err)
	}
	if gone, err := h.Sweep.TombstoneFile(ctx, r.FileName); err != nil || !gone {
		t.Fatalf("TombstoneFile again = %v, %v; want true (an earlier run's tombstone)", gone, err)
	}
	// The same report with a file of another name is stored.
	r.FileName = "partner_CR-TOMB-1_y.pdf"
	if _, _, err := h.Store.StoreReport(ctx, r, rec); err != nil {
		t.Fatalf("StoreReport with another file name: %v", err)
	}
}

// testStoredFileKept: reservations: a stored report's file cannot be tombstoned.
func testStoredFileKept(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	r := withFile(t, "CR-RESERVE-1", now)
	if _, _, err := h.Store.StoreReport(ctx, r, record("acme", "reserve-1", now)); err != nil {
		t.Fatal(err)
	}
	if gone, err := h.Sweep.TombstoneFile(ctx, r.FileName); err != nil || gone {
		t.Fatalf("TombstoneFile of a reserved name = %v, %v; want false", gone, err)
	}
	// A report whose key was taken reserves nothing.
	dup := withFile(t, "CR-RESERVE-1", now)
	dup.FileName = "partner_CR-RESERVE-1_dup.pdf"
	if _, _, err := h.Store.StoreReport(ctx, dup, record("acme", "reserve-1", now)); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("duplicate = %v; want ErrConflict", err)
	}
	if gone, err := h.Sweep.TombstoneFile(ctx, dup.FileName); err != nil || !gone {
		t.Fatalf("TombstoneFile of a duplicate's file = %v, %v; want true", gone, err)
	}
}

// testReservedFilesListedOnce: reservations: each stored file is listed for its check once.
func testReservedFilesListedOnce(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	var names []string
	for i := range 5 {
		r := withFile(t, fmt.Sprintf("CR-CHECK-%d", i), now.Add(time.Duration(i-5)*time.Minute))
		if _, _, err := h.Store.StoreReport(ctx, r, record("acme", fmt.Sprintf("check-%d", i), now)); err != nil {
			t.Fatal(err)
		}
		names = append(names, r.FileName)
	}
	if _, err := h.Sweep.TombstoneFile(ctx, "partner_CR-CHECK-none_x.pdf"); err != nil {
		t.Fatal(err)
	}
	// Older than two minutes ago: the first three, oldest first.
	got, err := h.Sweep.UncheckedReservations(ctx, now.Add(-2*time.Minute), 10)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 3 || got[0].FileName != names[0] || got[2].FileName != names[2] || got[0].ID <= 0 {
		t.Fatalf("UncheckedReservations = %+v; want the files of the three oldest rows", got)
	}
	if !got[0].ReceivedAt.Equal(now.Add(-5 * time.Minute)) {
		t.Fatalf("reservation time %v, want the row's %v", got[0].ReceivedAt, now.Add(-5*time.Minute))
	}
	if err := h.Sweep.MarkChecked(ctx, []string{got[0].FileName, got[1].FileName}); err != nil {
		t.Fatal(err)
	}
	got, err = h.Sweep.UncheckedReservations(ctx, now.Add(time.Minute), 2)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].FileName != names[2] || got[1].FileName != names[3] {
		t.Fatalf("after marking two: %+v; want the next two, limited", got)
	}
}

// testTombstonesPurged: reservations: old tombstones purged in bounded batches.
func testTombstonesPurged(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	for i := range 5 {
		if _, err := h.Sweep.TombstoneFile(ctx, fmt.Sprintf("partner_CR-OLDTOMB-%d_x.pdf", i)); err != nil {
			t.Fatal(err)
		}
	}
	r := withFile(t, "CR-KEEP-RESERVED", now)
	if _, _, err := h.Store.StoreReport(ctx, r, record("acme", "keep-reserved", now)); err != nil {
		t.Fatal(err)
	}
	later := time.Now().Add(time.Hour)
	if n, err := h.Sweep.PurgeTombstones(ctx, time.Now().Add(-time.Hour), 2, true); err != nil || n != 0 {
		t.Fatalf("purge of young tombstones = %d, %v; want 0", n, err)
	}
	if n, err := h.Sweep.PurgeTombstones(ctx, later, 2, false); err != nil || n != 5 {
		t.Fatalf("dry run = %d, %v; want 5", n, err)
	}
	var total int64
	for round := 0; ; round++ {
		n, err := h.Sweep.PurgeTombstones(ctx, later, 2, true)
		if err != nil {
			t.Fatal(err)
		}
		if n > 2 {
			t.Fatalf("round %d deleted %d, over the limit 2", round, n)
		}
		total += n
		if n < 2 {
			break
		}
	}
	if total != 5 {
		t.Fatalf("purged %d tombstones, want 5", total)
	}
	if gone, err := h.Sweep.TombstoneFile(ctx, r.FileName); err != nil || gone {
		t.Fatalf("the purge took a reservation: TombstoneFile = %v, %v", gone, err)
	}
}

// withFile is a minimal report of acme received at, naming its file.
func withFile(t testing.TB, credit string, at time.Time) domain.StagedReport {
	t.Helper()
	r := staged(t, "acme", credit, at)
	r.ReceivedAt = at
	r.FileName, r.FileSize, r.FileSHA256 = "partner_"+credit+"_x.pdf", 10, fmt.Sprintf("%064d", 1)
	return r
}

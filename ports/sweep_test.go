package ports_test

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// TestReconcileAfterACrash: what a crash can leave older than the stale
// bound is listed, then removed with apply; anything younger, and every

// retention is the quarantine retention the tests run under.
const retention = 30 * 24 * time.Hour

// newSweep is the sweep tests run: a stale bound of 65 s (a report
// timeout of 60 s) and batches of 2, so every path runs in several.
func newSweep(t *testing.T, store ports.SweepStore, up ports.UploadInventory, clock ports.Clock) *ports.Sweep {
	t.Helper()
	r, err := ports.NewSweep(store, up, clock, ports.SweepOptions{Stale: 65 * time.Second, Batch: 2, QuarantineRetention: retention})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestNewSweepRefusesWhatItCannotRun: a missing dependency or a bound
// that would sweep everything (no stale bound) or loop forever (no batch)
// is an error at construction, not at the first run.
func TestNewSweepRefusesWhatItCannotRun(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fakes.NewReportStore(), fakes.NewUploads(clock)
	ok := ports.SweepOptions{Stale: time.Minute, Batch: 1, QuarantineRetention: time.Hour}
	for name, f := range map[string]func() (*ports.Sweep, error){
		"no store":   func() (*ports.Sweep, error) { return ports.NewSweep(nil, up, clock, ok) },
		"no uploads": func() (*ports.Sweep, error) { return ports.NewSweep(store, nil, clock, ok) },
		"no clock":   func() (*ports.Sweep, error) { return ports.NewSweep(store, up, nil, ok) },
		"no stale bound": func() (*ports.Sweep, error) {
			return ports.NewSweep(store, up, clock, ports.SweepOptions{Batch: 1})
		},
		"no batch": func() (*ports.Sweep, error) {
			return ports.NewSweep(store, up, clock, ports.SweepOptions{Stale: time.Minute, QuarantineRetention: time.Hour})
		},
		"no quarantine retention": func() (*ports.Sweep, error) {
			return ports.NewSweep(store, up, clock, ports.SweepOptions{Stale: time.Minute, Batch: 1})
		},
	} {
		if _, err := f(); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

// file a row names, stays; rows without their file are reported.
func TestReconcileAfterACrash(t *testing.T) {
	ctx := context.Background()
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	kept, err := svc.Submit(ctx, submission(withFile("CR-1"), ""))
	if err != nil {
		t.Fatal(err)
	}
	lost, err := svc.Submit(ctx, submission(withFile("CR-2"), ""))
	if err != nil {
		t.Fatal(err)
	}
	_ = up.Remove(ctx, lost.FileName) // a row whose file went missing
	old, young := t0.Add(-2*time.Minute), t0.Add(time.Minute)
	up.PutLeftover(".tmp-old", old)
	up.PutFile("partner_CR-9_20261126T095800000Z.pdf", fixture.PDF(100), old) // published, no row: a crash between file and commit
	clock.Add(2 * time.Minute)
	up.PutLeftover(".tmp-young", young)
	up.PutFile("partner_CR-8_20261126T100100000Z.pdf", fixture.PDF(100), young) // may be a report in flight
	store.PutKey(domain.IdempotencyRecord{User: "acme", KeyHash: "pending-old", State: domain.KeyPending, Nonce: "n1",
		CreatedAt: old, ExpiresAt: t0.Add(24 * time.Hour)})
	store.PutKey(domain.IdempotencyRecord{User: "acme", KeyHash: "expired", State: domain.KeyDone, Nonce: "n2",
		CreatedAt: t0.Add(-25 * time.Hour), ExpiresAt: t0.Add(-time.Hour)})

	r := newSweep(t, store, up, clock)
	keysBefore, filesBefore := store.Keys(), up.Count()
	dry, err := r.Run(ctx, false, ports.EveryRow)
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]int64{ports.FoundLeftover: 1, ports.FoundOrphanFile: 1, ports.FoundPendingRecord: 1,
		ports.FoundExpiredKey: 1, ports.FoundMissingFile: 1}
	for kind, n := range want {
		if dry.Counts[kind] != n {
			t.Errorf("dry run: %d %s, want %d (%+v)", dry.Counts[kind], kind, n, dry.Findings)
		}
	}
	if store.Keys() != keysBefore || up.Count() != filesBefore {
		t.Fatal("the dry run removed something")
	}
	if _, err := r.Run(ctx, true, ports.EveryRow); err != nil {
		t.Fatal(err)
	}
	again, err := r.Run(ctx, false, ports.EveryRow)
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{ports.FoundLeftover, ports.FoundOrphanFile, ports.FoundPendingRecord, ports.FoundExpiredKey} {
		if again.Counts[kind] != 0 {
			t.Errorf("after apply: %d %s left", again.Counts[kind], kind)
		}
	}
	if again.Counts[ports.FoundMissingFile] != 1 {
		t.Error("the row without its file is no longer reported")
	}
	for _, name := range []string{kept.FileName, "partner_CR-8_20261126T100100000Z.pdf"} {
		if ok, _ := up.Exists(ctx, name); !ok {
			t.Errorf("%s was removed", name)
		}
	}
	if r, err := svc.Submit(ctx, submission(withFile("CR-1"), "")); err != nil || !r.Replayed {
		t.Errorf("a retry after the sweep: %+v %v; want the first answer again", r, err)
	}
}

// TestSweepChecksLateRowsOnce: serve's sweep checks each stored row's file
// once, once the row is older than the stale bound, however late its
// commit landed: a row that became visible after earlier runs had passed
// its time is still checked, and reported once.
func TestSweepChecksLateRowsOnce(t *testing.T) {
	ctx := context.Background()
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	r := newSweep(t, store, up, clock)
	clock.Add(10 * time.Minute)
	for range 2 {
		if rep, err := r.Run(ctx, true, ports.NewRows); err != nil || rep.Counts[ports.FoundMissingFile] != 0 {
			t.Fatalf("sweep before the row = %+v, %v", rep.Counts, err)
		}
		clock.Add(time.Minute)
	}
	// A report received at t0 whose row lands only now, its file lost.
	clock.Add(-12 * time.Minute) // back to t0
	late, err := svc.Submit(ctx, submission(withFile("CR-LATE"), ""))
	if err != nil {
		t.Fatal(err)
	}
	ok, err := svc.Submit(ctx, submission(withFile("CR-OK"), ""))
	if err != nil {
		t.Fatal(err)
	}
	_ = up.Remove(ctx, late.FileName)
	clock.Add(13 * time.Minute)
	rep, err := r.Run(ctx, true, ports.NewRows)
	if err != nil {
		t.Fatal(err)
	}
	if rep.Counts[ports.FoundMissingFile] != 1 || rep.Findings[0].Name != late.FileName {
		t.Fatalf("first sweep after the late row: %+v %+v; want its missing file reported", rep.Counts, rep.Findings)
	}
	if rep, err = r.Run(ctx, true, ports.NewRows); err != nil || rep.Counts[ports.FoundMissingFile] != 0 {
		t.Fatalf("second sweep: %+v, %v; a row is reported once", rep.Counts, err)
	}
	if found, _ := up.Exists(ctx, ok.FileName); !found {
		t.Fatal("the sweep removed a stored report's file")
	}
}

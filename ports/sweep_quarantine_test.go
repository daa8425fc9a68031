package ports_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// TestSweepQuarantinesOrphans: a published file no row names (a report
// whose row a restore lost) is moved to quarantine, not deleted; it is
// not taken for an orphan again, is not served (Exists), is listed with
// the time it was quarantined, and is deleted only after the retention.
func TestSweepQuarantinesOrphans(t *testing.T) {
	ctx := context.Background()
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	orphan := "partner_CR-9_20261126T095800000Z.pdf"
	data := fixture.PDF(300)
	up.PutFile(orphan, data, t0.Add(-2*time.Minute))
	r := newSweep(t, store, up, clock)

	rep, err := r.Run(ctx, true, ports.NewRows)
	if err != nil || rep.Counts[ports.FoundOrphanFile] != 1 || rep.Quarantined != 1 {
		t.Fatalf("first run: %+v %v; want the orphan quarantined", rep, err)
	}
	if got, ok := up.QuarantinedData(orphan); !ok || string(got) != string(data) {
		t.Fatal("the orphan is not in quarantine with its content")
	}
	if ok, _ := up.Exists(ctx, orphan); ok {
		t.Fatal("a quarantined file is still served")
	}
	clock.Add(retention - time.Hour)
	rep, err = r.Run(ctx, true, ports.NewRows)
	if err != nil || rep.Counts[ports.FoundOrphanFile] != 0 || rep.Counts[ports.FoundExpiredFile] != 0 || rep.Quarantined != 1 {
		t.Fatalf("a run within the retention: %+v %v; want nothing done, one file kept", rep, err)
	}
	list, err := r.Quarantined(ctx)
	if err != nil || len(list) != 1 || list[0].Name != orphan || !list[0].At.Equal(t0) || !list[0].DeleteAfter.Equal(t0.Add(retention)) || list[0].Named {
		t.Fatalf("Quarantined = %+v, %v", list, err)
	}
	clock.Add(2 * time.Hour)
	dry, err := r.Run(ctx, false, ports.EveryRow)
	if err != nil || dry.Counts[ports.FoundExpiredFile] != 1 {
		t.Fatalf("dry run past the retention: %+v %v", dry.Counts, err)
	}
	if _, ok := up.QuarantinedData(orphan); !ok {
		t.Fatal("a dry run deleted a quarantined file")
	}
	rep, err = r.Run(ctx, true, ports.NewRows)
	if err != nil || rep.Counts[ports.FoundExpiredFile] != 1 || rep.Quarantined != 0 {
		t.Fatalf("past the retention: %+v %v; want the file deleted", rep, err)
	}
	if _, ok := up.QuarantinedData(orphan); ok {
		t.Fatal("the file outlived its retention")
	}
}

// TestRestoreQuarantined: a quarantined file goes back only when a row
// names it, only under a name Save could have made, and never over a
// published file.
func TestRestoreQuarantined(t *testing.T) {
	ctx := context.Background()
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	res, err := svc.Submit(ctx, submission(withFile("CR-1"), ""))
	if err != nil {
		t.Fatal(err)
	}
	orphan := "partner_CR-9_20261126T095800000Z.pdf"
	up.PutFile(orphan, fixture.PDF(100), t0.Add(-time.Hour))
	for _, name := range []string{res.FileName, orphan} {
		if err := up.Quarantine(ctx, name); err != nil {
			t.Fatal(err)
		}
	}
	r := newSweep(t, store, up, clock)
	list, err := r.Quarantined(ctx)
	if err != nil || len(list) != 2 {
		t.Fatalf("Quarantined = %+v, %v", list, err)
	}
	for _, f := range list {
		if f.Named != (f.Name == res.FileName) {
			t.Errorf("%s listed Named=%v", f.Name, f.Named)
		}
	}
	for name, kind := range map[string]error{
		orphan: domain.ErrConflict, "../" + orphan: domain.ErrInvalidInput, "x.pdf": domain.ErrInvalidInput,
		"partner_CR-1_20261126T100000000Z.png": domain.ErrConflict,
	} {
		if err := r.Restore(ctx, name); !domain.IsKind(err, kind) {
			t.Errorf("Restore(%q) = %v, want kind %v", name, err, kind)
		}
	}
	if err := r.Restore(ctx, res.FileName); err != nil {
		t.Fatal(err)
	}
	if ok, _ := up.Exists(ctx, res.FileName); !ok {
		t.Fatal("the restored file is not served")
	}
	if err := r.Restore(ctx, res.FileName); !domain.IsKind(err, domain.ErrNotFound) {
		t.Fatalf("a second Restore = %v, want not found", err)
	}
}

// TestSweepGoesOnPastFailures: one file the sweep cannot move or delete
// is counted and named; every other file is handled, records and
// tombstones are still purged and new rows still checked, and the run
// says it was incomplete.
func TestSweepGoesOnPastFailures(t *testing.T) {
	ctx := context.Background()
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	lost, err := svc.Submit(ctx, submission(withFile("CR-LOST"), ""))
	if err != nil {
		t.Fatal(err)
	}
	_ = up.Remove(ctx, lost.FileName)
	stuck := "partner_CR-7_20261126T095800000Z.pdf"
	for _, n := range []string{stuck, "partner_CR-8_20261126T095800000Z.pdf", "partner_CR-9_20261126T095800000Z.pdf"} {
		up.PutFile(n, fixture.PDF(100), t0.Add(-time.Hour))
	}
	up.PutLeftover(".tmp-stuck", t0.Add(-time.Hour))
	up.PutLeftover(".tmp-old", t0.Add(-time.Hour))
	store.PutKey(domain.IdempotencyRecord{User: "acme", KeyHash: "expired", State: domain.KeyDone, Nonce: "n",
		CreatedAt: t0.Add(-25 * time.Hour), ExpiresAt: t0.Add(-time.Hour)})
	denied := errors.New("permission denied")
	up.FailOn = func(op, name string) error {
		if name == stuck || name == ".tmp-stuck" {
			return denied
		}
		return nil
	}
	clock.Add(2 * time.Minute)
	r := newSweep(t, store, up, clock)
	rep, err := r.Run(ctx, true, ports.NewRows)
	if !errors.Is(err, ports.ErrSweepIncomplete) || !errors.Is(err, denied) {
		t.Fatalf("Run = %v, want an incomplete sweep naming the failure", err)
	}
	if rep.Failed[ports.FoundOrphanFile] != 1 || rep.Failed[ports.FoundLeftover] != 1 || rep.FailureCount() != 2 {
		t.Fatalf("failures %+v %+v, want one orphan and one leftover", rep.Failed, rep.Failures)
	}
	if rep.Counts[ports.FoundOrphanFile] != 2 || rep.Counts[ports.FoundLeftover] != 1 || rep.Counts[ports.FoundExpiredKey] != 1 ||
		rep.Counts[ports.FoundMissingFile] != 1 {
		t.Fatalf("counts %+v: the run did not go on past its failures", rep.Counts)
	}
	if _, ok := up.Data(stuck); !ok {
		t.Fatal("the file that could not be moved is gone")
	}
	// Exists failing for every row: the rows stay unchecked for the next run.
	up.FailOn = func(op, _ string) error {
		if op == "Exists" {
			return denied
		}
		return nil
	}
	if _, err := svc.Submit(ctx, submission(withFile("CR-NEW"), "")); err != nil {
		t.Fatal(err)
	}
	clock.Add(2 * time.Minute)
	rep, err = r.Run(ctx, true, ports.NewRows)
	if !errors.Is(err, ports.ErrSweepIncomplete) || rep.Failed[ports.FoundMissingFile] != 1 || rep.Counts[ports.FoundOrphanFile] != 1 {
		t.Fatalf("rows whose check fails: %+v %+v %v; want the check failed, the stuck file quarantined now", rep.Failed, rep.Counts, err)
	}
	if left, _ := store.UncheckedReservations(ctx, clock.Now(), 10); len(left) != 1 {
		t.Fatalf("unchecked rows after a failed check: %+v; want the new row left for the next run", left)
	}
	up.FailOn = nil
	rep, err = r.Run(ctx, true, ports.NewRows)
	if err != nil || rep.FailureCount() != 0 {
		t.Fatalf("once nothing fails: %+v %v", rep, err)
	}
	if left, _ := store.UncheckedReservations(ctx, clock.Now(), 10); len(left) != 0 {
		t.Fatalf("rows still unchecked: %+v", left)
	}
}

// TestSweepRefusesADryRunOfNewRows: NewRows records what it checked, so
// a dry run of it is refused rather than turned into EveryRow.
func TestSweepRefusesADryRunOfNewRows(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	if _, err := newSweep(t, store, up, clock).Run(context.Background(), false, ports.NewRows); err == nil {
		t.Fatal("a dry run of NewRows ran")
	}
}

package gormstore_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

func TestPurgeStoppedBetweenBatchesSQLite(t *testing.T) {
	t.Parallel()
	purgeStopped(t, storetest.MustOpenSQLite(t))
}

func TestPurgeStoppedBetweenBatchesMySQL(t *testing.T) {
	t.Parallel()
	purgeStopped(t, storetest.MustOpenMySQL(t))
}

// errStopped is the purge's end in the middle: a kill after its first
// batch's rows were deleted, before their files.
var errStopped = errors.New("purge stopped here")

// stopAfterFirstBatch is the store under a purge that stops once the
// first batch's rows are deleted, before their files are.
type stopAfterFirstBatch struct {
	ports.PurgeStore
	batches int
}

func (s *stopAfterFirstBatch) DeleteReports(ctx context.Context, rows []domain.FileRow) (int64, error) {
	n, err := s.PurgeStore.DeleteReports(ctx, rows)
	if s.batches++; err == nil && s.batches == 1 {
		return n, errStopped
	}
	return n, err
}

// purgeStopped: issue 32 finding 13. A purge that stops after its first
// batch (its rows deleted, their files not yet) leaves files no row
// names. The next sweep deletes them, whether in place or already in
// quarantine (where an earlier release's sweep put them), instead of
// keeping them for uploads.quarantine_retention: the store recorded that
// the purge took them. A second purge then takes the rest; a young
// report and its file stay, and reconcile finds nothing orphaned or
// missing.
func purgeStopped(t *testing.T, st *gormstore.Store) {
	ctx := context.Background()
	up := storetest.FSUploads(t)
	const batch = 4
	longAgo := time.Now().UTC().Add(-2 * 365 * 24 * time.Hour)
	var names []string
	store := func(credit string, at time.Time) string {
		t.Helper()
		name, err := up.Store.Save(ctx, credit, time.Now(), fixture.File(fixture.PDF(1000+len(names))))
		if err != nil {
			t.Fatal(err)
		}
		r := fullReport(t, credit)
		r.ReceivedAt, r.FileName, r.FileSize, r.FileSHA256 = at, name, 10, fmt.Sprintf("%064d", len(names))
		if _, _, err := st.StoreReport(ctx, r, recordT(credit, at)); err != nil {
			t.Fatal(err)
		}
		names = append(names, name)
		return name
	}
	for i := range 2*batch + 1 {
		store(fmt.Sprintf("CR-PURGED-%d", i), longAgo)
	}
	young := store("CR-YOUNG", time.Now().UTC())

	clock := fakes.NewClock(time.Now().UTC())
	stopped := &stopAfterFirstBatch{PurgeStore: st}
	purge, err := ports.NewPurge(stopped, up.Inventory, clock, batch, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := purge.Run(ctx, 365*24*time.Hour, true); !errors.Is(err, errStopped) {
		t.Fatalf("the stopped purge: %v", err)
	}
	left := names[:batch] // the first batch's files, whose rows are gone
	for _, n := range left {
		if ok, err := up.Inventory.Exists(ctx, n); err != nil || !ok {
			t.Fatalf("the stopped purge removed %s already (%v, %v): the stop is not where the test means it", n, ok, err)
		}
	}
	// An earlier release's sweep had moved one of them to quarantine.
	if err := up.Inventory.Quarantine(ctx, left[0]); err != nil {
		t.Fatal(err)
	}

	clock.Add(time.Hour) // past the stale bound
	sweep, err := ports.NewSweep(st, up.Inventory, clock, ports.SweepOptions{Stale: time.Minute, TombstoneTTL: 24 * time.Hour,
		QuarantineRetention: 30 * 24 * time.Hour, Batch: 3})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := sweep.Run(ctx, true, ports.NewRows)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range left {
		if ok, err := up.Inventory.Exists(ctx, n); err != nil || ok {
			t.Errorf("%s, the file of a purged report, is still in place after the sweep (%v)", n, err)
		}
	}
	quarantined, err := sweep.Quarantined(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range quarantined {
		t.Errorf("%s, the file of a purged report, is kept in quarantine until %s", q.Name, q.DeleteAfter.Format(time.RFC3339))
	}
	if rep.Counts["purged_file"] != batch || rep.Counts[ports.FoundOrphanFile] != 0 {
		t.Errorf("the sweep counted %v; want %d purged files deleted and no orphan", rep.Counts, batch)
	}

	// A second purge takes the rest; the young report stays.
	again, err := ports.NewPurge(st, up.Inventory, clock, batch, 24*time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	if res, err := again.Run(ctx, 365*24*time.Hour, true); err != nil || res.Reports != batch+1 || res.Files != batch+1 {
		t.Fatalf("the second purge: %+v, %v; want the %d reports and files left", res, err, batch+1)
	}
	for _, n := range names {
		ok, err := up.Inventory.Exists(ctx, n)
		if err != nil || ok != (n == young) {
			t.Errorf("%s present = %v (%v) after both purges; only the young report's file stays", n, ok, err)
		}
	}
	final, err := sweep.Run(ctx, false, ports.EveryRow)
	if err != nil || final.Counts[ports.FoundOrphanFile]+final.Counts[ports.FoundMissingFile]+final.Counts["purged_file"] != 0 {
		t.Errorf("reconcile after both purges: %v, %v; want nothing to do", final.Counts, err)
	}
}

package gormstore_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// eachDriver runs fn on SQLite and MariaDB; fresh makes an empty database.
func eachDriver(t *testing.T, fn func(t *testing.T, driver string, fresh func(testing.TB) string)) {
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			fn(t, driver, func(tb testing.TB) string { return storetest.FreshDSN(tb, driver) })
		})
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !ok(); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// TestBatchOutlivesAMemberNearItsDeadline: a report whose deadline passes
// while its batch runs gets its own answer (outcome unknown), and the
// batch goes on for the others: a healthy report sharing the batch is
// stored, not failed because of its neighbour's deadline. The batch's
// COMMIT is held until the near report has given up.
func TestBatchOutlivesAMemberNearItsDeadline(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, driver string, fresh func(testing.TB) string) {
		dsn := fresh(t)
		st := storetest.MustOpen(t, driver, dsn, gormstore.Options{BatchWriters: 1})
		ctx := context.Background()
		firstHeld, releaseFirst, nearDone := make(chan struct{}), make(chan struct{}), make(chan struct{})
		var commits atomic.Int32
		gormstore.SetBeforeCommit(st, func() {
			switch commits.Add(1) {
			case 1: // keeps the one writer busy while the next two queue
				close(firstHeld)
				<-releaseFirst
			case 2: // the shared batch: held until the near report gave up
				<-nearDone
				time.Sleep(100 * time.Millisecond)
			}
		})
		var wg sync.WaitGroup
		wg.Go(func() {
			if _, _, err := st.StoreReport(ctx, fullReport(t, "CR-FIRST"), recordT("first", time.Now())); err != nil {
				t.Errorf("first report: %v", err)
			}
		})
		<-firstHeld
		var nearErr, healthyErr error
		var healthyID int64
		nearCtx, cancel := context.WithTimeout(ctx, 1500*time.Millisecond)
		defer cancel()
		wg.Go(func() {
			_, _, nearErr = st.StoreReport(nearCtx, fullReport(t, "CR-NEAR"), recordT("near", time.Now()))
			close(nearDone)
		})
		healthyCtx, cancelHealthy := context.WithTimeout(ctx, time.Minute)
		defer cancelHealthy()
		wg.Go(func() {
			healthyID, _, healthyErr = st.StoreReport(healthyCtx, fullReport(t, "CR-HEALTHY"), recordT("healthy", time.Now()))
		})
		waitUntil(t, "both reports to queue", func() bool { return gormstore.Queued(st) == 2 })
		close(releaseFirst)
		wg.Wait()
		if healthyErr != nil || healthyID <= 0 {
			t.Fatalf("the healthy report beside one near its deadline = %d, %v; want it stored", healthyID, healthyErr)
		}
		if !errors.Is(nearErr, domain.ErrOutcomeUnknown) {
			t.Fatalf("the report whose time ran out during its batch = %v; want ErrOutcomeUnknown", nearErr)
		}
		if n := storetest.CountReports(t, driver, dsn); n != 3 {
			t.Fatalf("%d rows, want 3: the near report's row committed with its batch", n)
		}
	})
}

// inSweep reports when the sweep starts deciding a file's fate.
type inSweep struct {
	ports.SweepStore
	once    sync.Once
	entered chan struct{}
}

func (s *inSweep) TombstoneFile(ctx context.Context, name string) (bool, error) {
	s.once.Do(func() { close(s.entered) })
	return s.SweepStore.TombstoneFile(ctx, name)
}

type shiftedClock time.Duration

func (c shiftedClock) Now() time.Time { return time.Now().Add(time.Duration(c)) }

// TestLateCommitKeepsFileStore: a report's COMMIT is held while the sweep
// runs beside it and finds its file old and named by no committed row.
// The sweep's tombstone waits for the report's uncommitted reservation (SQLite's
// one writer, in this process or in another one such as `reconcile
// --apply`; MariaDB's row lock) and then fails: the file stays, and the row
// lands with it. Without the reservation the sweep would remove the file before
// the row committed.
func TestLateCommitKeepsFileStore(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, driver string, fresh func(testing.TB) string) {
		for _, where := range []string{"same process", "another process"} {
			t.Run(where, func(t *testing.T) {
				dsn := fresh(t)
				st := storetest.MustOpen(t, driver, dsn, gormstore.Options{})
				var sweepStore ports.SweepStore = st
				if where == "another process" {
					sweepStore = storetest.MustOpen(t, driver, dsn, gormstore.Options{})
				}
				up := storetest.FSUploads(t)
				ctx := context.Background()
				r := fullReport(t, "CR-LATE-COMMIT")
				name, err := up.Store.Save(ctx, "CR-LATE-COMMIT", r.ReceivedAt, fixture.File(fixture.PDF(2000)))
				if err != nil {
					t.Fatal(err)
				}
				r.FileName, r.FileSize = name, 2000
				held, release := make(chan struct{}), make(chan struct{})
				var once sync.Once
				gormstore.SetBeforeCommit(st, func() { once.Do(func() { close(held); <-release }) })
				stored := make(chan error, 1)
				go func() {
					_, _, err := st.StoreReport(ctx, r, recordT("late-commit", r.ReceivedAt))
					stored <- err
				}()
				<-held
				sweep := &inSweep{SweepStore: sweepStore, entered: make(chan struct{})}
				// An hour on: the file is far older than the stale bound.
				rec, err := ports.NewSweep(sweep, up.Inventory, shiftedClock(time.Hour), ports.SweepOptions{Stale: time.Second, Batch: 10, QuarantineRetention: 30 * 24 * time.Hour})
				if err != nil {
					t.Fatal(err)
				}
				type run struct {
					rep ports.SweepReport
					err error
				}
				swept := make(chan run, 1)
				go func() {
					rep, err := rec.Run(ctx, true, ports.NewRows)
					swept <- run{rep, err}
				}()
				select {
				case <-sweep.entered:
				case res := <-swept:
					t.Fatalf("the sweep ended without deciding the file: %+v, %v", res.rep.Counts, res.err)
				}
				time.Sleep(200 * time.Millisecond) // let its tombstone reach the database
				close(release)
				if err := <-stored; err != nil {
					t.Fatalf("StoreReport = %v; want the row stored", err)
				}
				res := <-swept
				if res.err != nil {
					t.Fatal(res.err)
				}
				if res.rep.Counts[ports.FoundOrphanFile] != 0 {
					t.Fatalf("the sweep took the file of a row that committed late: %+v", res.rep.Findings)
				}
				if ok, err := up.Store.Exists(ctx, name); !ok || err != nil {
					t.Fatalf("the row committed, its file %s is gone (%v)", name, err)
				}
				if n := storetest.CountReports(t, driver, dsn); n != 1 {
					t.Fatalf("%d rows, want 1", n)
				}
				if again, err := rec.Run(ctx, true, ports.NewRows); err != nil || again.Counts[ports.FoundMissingFile] != 0 || again.Counts[ports.FoundOrphanFile] != 0 {
					t.Fatalf("the next sweep: %+v, %v; want nothing", again.Counts, err)
				}
			})
		}
	})
}

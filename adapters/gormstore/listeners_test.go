package gormstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/storetest"
)

// A report's event is written dispatched when its partner has no
// endpoint (listeners.go). These tests hold each side of the race with
// a partner's first endpoint open before its COMMIT and show that the
// other side waits: a batch that commits after the endpoint has read it
// (its event is delivered there), and an endpoint created after a batch
// read "none" commits after that batch (its event came first). Without
// the batch's locking read, MySQL at read committed would let either
// side through, and an event committed after the endpoint would be
// delivered nowhere.
func TestQuietEventsWaitForANewEndpointSQLite(t *testing.T) {
	t.Parallel()
	quietRace(t, func(tb testing.TB) (string, string) { return gormstore.SQLite, storetest.SQLitePath(tb) })
}

func TestQuietEventsWaitForANewEndpointMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	quietRace(t, func(tb testing.TB) (string, string) { return gormstore.MySQL, storetest.MustCreateDatabase(tb) })
}

// holdWait is how long a test holds one side open and watches that the
// other does not finish: far above a batch's commit on an idle server,
// far below the SQLite busy timeout and the MySQL lock wait.
const holdWait = 400 * time.Millisecond

func quietRace(t *testing.T, fresh func(testing.TB) (driver, dsn string)) {
	t.Run("an endpoint first", func(t *testing.T) {
		t.Parallel()
		driver, dsn := fresh(t)
		st := storetest.MustOpen(t, driver, dsn, gormstore.Options{})
		h := storetest.GormOutbox(t, st, driver, dsn)
		ctx := context.Background()
		now := storetest.OutboxNow()
		// The partner's first report: nobody listens, so it is written
		// dispatched, and on MySQL the partner now has a count row.
		r, rec := storetest.OutboxReport(t, "acme", "CR-QUIET-0", now)
		if _, _, err := h.Reports.StoreReport(ctx, r, rec); err != nil {
			t.Fatal(err)
		}
		if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 0 {
			t.Fatalf("Dispatch = %d, %v; want 0: the event of a partner without endpoints is written dispatched", n, err)
		}
		held, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		gormstore.SetBeforeTxCommit(st, func() { once.Do(func() { close(held); <-release }) })
		ep := storetest.NewEndpoint("acme")
		created := make(chan error, 1)
		go func() { created <- h.Endpoints.CreateEndpoint(ctx, ep, 5) }()
		<-held // the endpoint and its count are written, not committed
		stored := make(chan error, 1)
		r, rec = storetest.OutboxReport(t, "acme", "CR-QUIET-1", now)
		go func() {
			_, _, err := h.Reports.StoreReport(ctx, r, rec)
			stored <- err
		}()
		select {
		case err := <-stored:
			close(release)
			t.Fatalf("a report was stored (%v) while its partner's first endpoint was being created", err)
		case <-time.After(holdWait):
		}
		close(release)
		if err := <-created; err != nil {
			t.Fatalf("CreateEndpoint: %v", err)
		}
		if err := <-stored; err != nil {
			t.Fatalf("StoreReport after the endpoint: %v", err)
		}
		if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 1 {
			t.Fatalf("Dispatch = %d, %v; want the report's event, stored after the endpoint", n, err)
		}
		due, err := h.Deliveries.Due(ctx, now, 10, nil, time.Time{})
		if err != nil || len(due) != 1 {
			t.Fatalf("due = %+v, %v; want one delivery to the new endpoint", due, err)
		}
	})
	t.Run("a batch first", func(t *testing.T) {
		t.Parallel()
		driver, dsn := fresh(t)
		st := storetest.MustOpen(t, driver, dsn, gormstore.Options{})
		h := storetest.GormOutbox(t, st, driver, dsn)
		ctx := context.Background()
		now := storetest.OutboxNow()
		r, rec := storetest.OutboxReport(t, "acme", "CR-QUIET-0", now)
		if _, _, err := h.Reports.StoreReport(ctx, r, rec); err != nil {
			t.Fatal(err)
		}
		held, release := make(chan struct{}), make(chan struct{})
		var once sync.Once
		gormstore.SetBeforeCommit(st, func() { once.Do(func() { close(held); <-release }) })
		stored := make(chan error, 1)
		r, rec = storetest.OutboxReport(t, "acme", "CR-QUIET-1", now)
		go func() {
			_, _, err := h.Reports.StoreReport(ctx, r, rec)
			stored <- err
		}()
		<-held // the batch has read "no endpoint" and written its rows, not committed
		created := make(chan error, 1)
		go func() { created <- h.Endpoints.CreateEndpoint(ctx, storetest.NewEndpoint("acme"), 5) }()
		select {
		case err := <-created:
			close(release)
			t.Fatalf("an endpoint was created (%v) while a batch that read none was open", err)
		case <-time.After(holdWait):
		}
		close(release)
		if err := <-stored; err != nil {
			t.Fatalf("StoreReport: %v", err)
		}
		if err := <-created; err != nil {
			t.Fatalf("CreateEndpoint after the batch: %v", err)
		}
		if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 0 {
			t.Fatalf("Dispatch = %d, %v; want 0: both events came before the endpoint", n, err)
		}
		// An event written dispatched can still be sent on request.
		if n, err := h.Deliveries.RedeliverSince(ctx, now.Add(-time.Minute), "", now); err != nil || n != 2 {
			t.Fatalf("RedeliverSince = %d, %v; want both earlier events made due for the new endpoint", n, err)
		}
		// A report after the endpoint is delivered there.
		r, rec = storetest.OutboxReport(t, "acme", "CR-QUIET-2", now)
		if _, _, err := h.Reports.StoreReport(ctx, r, rec); err != nil {
			t.Fatal(err)
		}
		if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 1 {
			t.Fatalf("Dispatch = %d, %v; want the event stored after the endpoint", n, err)
		}
	})
}

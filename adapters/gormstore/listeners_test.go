package gormstore_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// A report's event is written dispatched when its partner has no
// endpoint (listeners.go). These tests hold each side of the race with
// a partner's first endpoint open before its COMMIT: a batch that
// commits after the endpoint's row was written has its event delivered
// there, and an endpoint created after a batch read "none" waits for
// that batch (its event came first). Without the batch's locking read,
// MySQL at read committed would let either side through, and an event
// committed after the endpoint would be delivered nowhere.
func TestQuietEventsWaitForANewEndpointSQLite(t *testing.T) {
	t.Parallel()
	quietRace(t, func(tb testing.TB) (string, string) { return gormstore.SQLite, storetest.SQLitePath(tb) })
}

func TestQuietEventsWaitForANewEndpointMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	quietRace(t, func(tb testing.TB) (string, string) { return gormstore.MySQL, storetest.MustCreateDatabase(tb) })
}

// outboxOn is a migrated store on driver's dsn and its harness.
func outboxOn(t *testing.T, driver, dsn string, opts gormstore.Options) (*gormstore.Store, storetest.OutboxHarness) {
	st := storetest.MustOpen(t, driver, dsn, opts)
	return st, storetest.GormOutbox(t, st, driver, dsn)
}

// holdFirst makes st's hook (gormstore.SetBeforeCommit or
// SetBeforeTxCommit) hold its first run until release is closed; held is
// closed as that run starts. Later runs pass.
func holdFirst(st *gormstore.Store, set func(*gormstore.Store, func())) (held, release chan struct{}) {
	held, release = make(chan struct{}), make(chan struct{})
	var once sync.Once
	set(st, func() { once.Do(func() { close(held); <-release }) })
	return held, release
}

// storeInto stores a report of user in a goroutine and sends its error
// on stored.
func storeInto(t *testing.T, h storetest.OutboxHarness, stored chan<- error, user, credit string, now time.Time) {
	r, rec := storetest.OutboxReport(t, user, credit, now)
	go func() {
		_, _, err := h.Reports.StoreReport(context.Background(), r, rec)
		stored <- err
	}()
}

// holdWait is how long a test holds one side open and watches that the
// other does not finish: far above a batch's commit on an idle server,
// far below the SQLite busy timeout and the MySQL lock wait.
const holdWait = 400 * time.Millisecond

func quietRace(t *testing.T, fresh func(testing.TB) (driver, dsn string)) {
	t.Run("an endpoint first", func(t *testing.T) {
		t.Parallel()
		driver, dsn := fresh(t)
		st, h := outboxOn(t, driver, dsn, gormstore.Options{})
		ctx := context.Background()
		now := storetest.OutboxNow()
		// The partner's first report: nobody listens, so it is written
		// dispatched, and on MySQL the partner now has a count row.
		storetest.StoreOutboxReport(t, h, "acme", "CR-QUIET-0", now)
		if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 0 {
			t.Fatalf("Dispatch = %d, %v; want 0: the event of a partner without endpoints is written dispatched", n, err)
		}
		held, release := holdFirst(st, gormstore.SetBeforeTxCommit)
		ep := storetest.NewEndpoint("acme")
		created := make(chan error, 1)
		go func() { created <- h.Endpoints.CreateEndpoint(ctx, ep, 5) }()
		<-held // the endpoint and its count are written, not committed
		stored := make(chan error, 1)
		storeInto(t, h, stored, "acme", "CR-QUIET-1", now)
		// On SQLite the batch waits for the creation (BEGIN IMMEDIATE); on
		// MariaDB its NOWAIT read finds the row held and it writes the
		// event undispatched without waiting. Either way the event, which
		// commits after the endpoint's row was written, is delivered there.
		select {
		case err := <-stored:
			if driver == gormstore.SQLite {
				close(release)
				t.Fatalf("a report was stored (%v) while its partner's first endpoint was being created", err)
			}
			stored <- err
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
		due, err := h.Deliveries.Due(ctx, now, 10, nil, nil, time.Time{})
		if err != nil || len(due) != 1 {
			t.Fatalf("due = %+v, %v; want one delivery to the new endpoint", due, err)
		}
	})
	t.Run("a batch first", func(t *testing.T) {
		t.Parallel()
		driver, dsn := fresh(t)
		st, h := outboxOn(t, driver, dsn, gormstore.Options{})
		ctx := context.Background()
		now := storetest.OutboxNow()
		storetest.StoreOutboxReport(t, h, "acme", "CR-QUIET-0", now)
		held, release := holdFirst(st, gormstore.SetBeforeCommit)
		stored := make(chan error, 1)
		storeInto(t, h, stored, "acme", "CR-QUIET-1", now)
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
		storetest.StoreOutboxReport(t, h, "acme", "CR-QUIET-2", now)
		if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 1 {
			t.Fatalf("Dispatch = %d, %v; want the event stored after the endpoint", n, err)
		}
	})
}

// Two deletions of one endpoint at once (a partner's retry) lower its
// partner's count once: the second is not found. A count lowered twice
// would make the partner's other endpoint look absent, and its events
// would be written dispatched (from the review of the change).
func TestDeleteEndpointTwiceAtOnceSQLite(t *testing.T) {
	t.Parallel()
	deleteTwice(t, gormstore.SQLite, storetest.SQLitePath(t))
}

func TestDeleteEndpointTwiceAtOnceMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	deleteTwice(t, gormstore.MySQL, storetest.MustCreateDatabase(t))
}

func deleteTwice(t *testing.T, driver, dsn string) {
	st, h := outboxOn(t, driver, dsn, gormstore.Options{})
	ctx := context.Background()
	now := storetest.OutboxNow()
	e1, e2 := storetest.NewEndpoint("acme"), storetest.NewEndpoint("acme")
	for _, e := range []domain.Endpoint{e1, e2} {
		if err := h.Endpoints.CreateEndpoint(ctx, e, 5); err != nil {
			t.Fatal(err)
		}
	}
	held, release := holdFirst(st, gormstore.SetBeforeTxCommit)
	first, second := make(chan error, 1), make(chan error, 1)
	go func() { first <- h.Endpoints.DeleteEndpoint(ctx, "acme", e1.ID) }()
	<-held // the first has deleted the row, not committed
	go func() { second <- h.Endpoints.DeleteEndpoint(ctx, "acme", e1.ID) }()
	time.Sleep(holdWait)
	close(release)
	if err := <-first; err != nil {
		t.Fatalf("the first deletion: %v", err)
	}
	if err := <-second; !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("the second deletion = %v, want not found", err)
	}
	storetest.StoreOutboxReport(t, h, "acme", "CR-TWICE", now)
	if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 1 {
		t.Fatalf("Dispatch = %d, %v; want 1: the partner still has an endpoint", n, err)
	}
}

// A deletion that holds its partner's count row (a long DELETE of its
// pending deliveries, a COMMIT held by the network) neither stalls nor
// fails the batches of that partner's reports, or of others' beside
// them: on MariaDB their read does not wait (NOWAIT) and their events
// are written undispatched (from the review of the change).
func TestHeldDeletionDoesNotStallReportsMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	driver, dsn := gormstore.MySQL, storetest.MustCreateDatabase(t)
	st, h := outboxOn(t, driver, dsn, gormstore.Options{})
	ctx := context.Background()
	now := storetest.OutboxNow()
	e1, e2 := storetest.NewEndpoint("acme"), storetest.NewEndpoint("acme")
	for _, e := range []domain.Endpoint{e1, e2} {
		if err := h.Endpoints.CreateEndpoint(ctx, e, 5); err != nil {
			t.Fatal(err)
		}
	}
	storetest.StoreOutboxReport(t, h, "acme", "CR-HELD-0", now)
	if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 1 {
		t.Fatalf("Dispatch = %d, %v; want the first report's event", n, err)
	}
	if !gormstore.CountsNowait(st) {
		t.Skip("the server takes no NOWAIT (MariaDB before 10.5, MySQL): a batch waits for the lock instead")
	}
	held, release := holdFirst(st, gormstore.SetBeforeTxCommit)
	deleted := make(chan error, 1)
	go func() { deleted <- h.Endpoints.DeleteEndpoint(ctx, "acme", e1.ID) }()
	<-held // the count row is lowered, not committed
	stored := make(chan error, 2)
	for i, user := range []string{"acme", "bravo"} {
		storeInto(t, h, stored, user, fmt.Sprintf("CR-HELD-%d", i+1), now)
	}
	for range 2 {
		select {
		case err := <-stored:
			if err != nil {
				t.Errorf("StoreReport while a deletion holds the count: %v", err)
			}
		case <-time.After(3 * time.Second):
			close(release)
			t.Fatal("a report waited for a deletion's count row")
		}
	}
	close(release)
	if err := <-deleted; err != nil {
		t.Fatal(err)
	}
	// acme's event, undispatched, goes to the endpoint left (beside the
	// first report's delivery there; e1's went with it).
	if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n < 1 {
		t.Fatalf("Dispatch = %d, %v; want acme's event", n, err)
	}
	due, err := h.Deliveries.Due(ctx, now, 10, nil, nil, time.Time{})
	if err != nil || len(due) != 2 || due[0].EndpointSeq != due[1].EndpointSeq {
		t.Fatalf("due = %+v, %v; want the two reports' deliveries to the endpoint left", due, err)
	}
}

// The counts' read does not wait where the server can say so.
func TestCountsLockClause(t *testing.T) {
	for version, want := range map[string]string{
		"10.11.19-MariaDB-0+deb12u1": " LOCK IN SHARE MODE NOWAIT",
		"5.5.5-10.3.39-MariaDB":      " LOCK IN SHARE MODE NOWAIT",
		"10.2.44-MariaDB":            " LOCK IN SHARE MODE",
		"11.4.2-MariaDB":             " LOCK IN SHARE MODE NOWAIT",
		"8.0.36":                     " FOR SHARE NOWAIT",
		"8.4.0-commercial":           " FOR SHARE NOWAIT",
		"5.7.44-log":                 " LOCK IN SHARE MODE",
		"":                           " LOCK IN SHARE MODE",
	} {
		if got := gormstore.CountsLock(version); got != want {
			t.Errorf("CountsLock(%q) = %q, want %q", version, got, want)
		}
	}
}

// A multi-row batch (MySQL) of two partners, one with an endpoint and
// one without, writes each event's own flag (from the review of the
// change: the race tests above store one report a batch).
func TestMultiRowBatchQuietPerPartnerMySQL(t *testing.T) {
	storetest.ServerDSN(t)
	t.Parallel()
	driver, dsn := gormstore.MySQL, storetest.MustCreateDatabase(t)
	st, h := outboxOn(t, driver, dsn, gormstore.Options{BatchWriters: 1})
	ctx := context.Background()
	now := storetest.OutboxNow()
	if err := h.Endpoints.CreateEndpoint(ctx, storetest.NewEndpoint("acme"), 5); err != nil {
		t.Fatal(err)
	}
	held, release := holdFirst(st, gormstore.SetBeforeCommit)
	stored := make(chan error, 3)
	storeInto(t, h, stored, "acme", "CR-ROWS-0", now) // the one writer's first batch, held
	<-held
	before := gormstore.RowBatches(st)
	storeInto(t, h, stored, "acme", "CR-ROWS-1", now)
	storeInto(t, h, stored, "nobody", "CR-ROWS-2", now)
	for gormstore.Queued(st) < 2 {
		time.Sleep(5 * time.Millisecond)
	}
	close(release)
	for range 3 {
		if err := <-stored; err != nil {
			t.Fatal(err)
		}
	}
	if got := gormstore.RowBatches(st) - before; got != 1 {
		t.Fatalf("%d multi-row batches after the held one, want the two queued reports in one", got)
	}
	// acme's two events wait for the dispatcher; nobody's was written dispatched.
	if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 2 {
		t.Fatalf("Dispatch = %d, %v; want acme's 2 events", n, err)
	}
	if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 0 {
		t.Fatalf("Dispatch again = %d, %v; want 0", n, err)
	}
}

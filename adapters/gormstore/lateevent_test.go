package gormstore_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/storetest"
)

// jumpClock stands still at at; once armed, its first Now is at and every
// later one at+jump: a write that waited jump inside the store between
// its call (the first Now) and its event (a later one).
type jumpClock struct {
	mu    sync.Mutex
	at    time.Time
	jump  time.Duration
	armed bool
	calls int
}

func (c *jumpClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.armed {
		return c.at
	}
	if c.calls++; c.calls == 1 {
		return c.at
	}
	return c.at.Add(c.jump)
}

// arm makes the next Now the call's and the later ones jump on.
func (c *jumpClock) arm(jump time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.armed, c.calls, c.jump = true, 0, jump
}

// settle stops the clock at where it jumped to.
func (c *jumpClock) settle() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.at, c.armed = c.at.Add(c.jump), false
}

// TestLateEventsAreDatedNearTheirCommit: with EventSlack 1.25 s (the
// service's, a quarter of events.list_delay), a report whose write waited
// 7 s inside the store (the batch queue, a busy SQLite retried, a lock
// wait) has its report.received event dated 5.75 s after its receipt,
// and a decision that waited as long its event 5.75 s after the decision,
// so that GET /v1/events' 5 s list delay still covers the way from the
// event's time to its commit: a partner whose cursor passed the events
// committed meanwhile does not pass these (a review found the decision's
// event dated 7 s before its commit, behind such a cursor for good). A
// write that waited no longer than the slack keeps the given times, and
// the receipt and the decision keep theirs.
func TestLateEventsAreDatedNearTheirCommit(t *testing.T) {
	t.Parallel()
	eachDriver(t, func(t *testing.T, driver string, fresh func(testing.TB) string) {
		t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
		clock := &jumpClock{at: t0}
		const slack, wait = 1250 * time.Millisecond, 7 * time.Second
		st := storetest.MustOpen(t, driver, fresh(t), gormstore.Options{Clock: clock, EventSlack: slack})
		ctx := context.Background()

		onTime, onTimeRec := storetest.OutboxReport(t, "acme", "CR-LATE-0", t0)
		id0, _, err := st.StoreReport(ctx, onTime, onTimeRec)
		must(t, err)
		late, lateRec := storetest.OutboxReport(t, "acme", "CR-LATE-1", t0)
		clock.arm(wait)
		id1, _, err := st.StoreReport(ctx, late, lateRec)
		must(t, err)
		clock.settle()
		d := domain.Decision{Status: domain.StatusAccepted, By: "cli:ana", At: clock.Now()}
		clock.arm(wait)
		if _, applied, err := st.Decide(ctx, id0, d); err != nil || !applied {
			t.Fatalf("Decide: %v %v", applied, err)
		}
		clock.settle()

		events, err := st.ListEvents(ctx, ports.EventFilter{User: "acme", Limit: 10})
		must(t, err)
		got := map[int64][]time.Time{}
		for _, e := range events {
			got[e.Receipt.ID] = append(got[e.Receipt.ID], e.CreatedAt)
			if e.Receipt.ID == id1 && !e.Receipt.ReceivedAt.Equal(t0) {
				t.Errorf("the late report's receipt says received at %s, want %s (its receipt time stays)", e.Receipt.ReceivedAt, t0)
			}
		}
		late0 := wait - slack
		want := map[int64][]time.Time{
			id0: {t0, d.At.Add(late0)}, // received on time; decided after a wait
			id1: {t0.Add(late0)},       // received after a wait
		}
		for id, ts := range want {
			if len(got[id]) != len(ts) {
				t.Fatalf("report %d's events at %v, want %v", id, got[id], ts)
			}
			for i := range ts {
				if !got[id][i].Equal(ts[i]) {
					t.Errorf("report %d's event %d dated %s, want %s", id, i, got[id][i], ts[i])
				}
			}
		}
		if r, err := st.GetReport(ctx, "acme", id0); err != nil || !r.Decision.At.Equal(d.At) {
			t.Errorf("the decision's own time: %+v %v, want %s", r.Decision, err, d.At)
		}
	})
}

func TestLateEventTime(t *testing.T) {
	t0 := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		waited, slack, moved time.Duration
	}{
		{0, time.Second, 0},
		{time.Second, time.Second, 0},
		{time.Second + 500*time.Microsecond, time.Second, 0}, // under a millisecond past: whole milliseconds only
		{3*time.Second + 1500*time.Microsecond, time.Second, 2001 * time.Millisecond},
		{time.Hour, 0, 0}, // no slack: nothing moves
		{-time.Second, time.Second, 0},
	} {
		got := domain.LateEventTime(t0, t0, t0.Add(c.waited), c.slack)
		if want := t0.Add(c.moved); !got.Equal(want) {
			t.Errorf("waited %s, slack %s: %s, want %s", c.waited, c.slack, got, want)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// TestLateEventsInAMultiRowBatch: on MySQL a batch of several reports
// writes its events in multi-row statements; the one report of the batch
// whose call came before the store's clock jumped 7 s (it waited that
// long in the queue) has its event dated 5.75 s after its receipt, the
// others, which came after, at their receipt.
func TestLateEventsInAMultiRowBatch(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	clock := &jumpClock{at: time.Now().UTC()}
	const slack, wait = 1250 * time.Millisecond, 7 * time.Second
	st := storetest.MustOpen(t, gormstore.MySQL, storetest.MustCreateDatabase(t), gormstore.Options{BatchWriters: 1, Clock: clock, EventSlack: slack})
	storeOneBatch(t, st, "LATE", 8, func() { clock.arm(wait) })
	if gormstore.RowBatches(st) == 0 {
		t.Fatal("no batch went through the multi-row statements")
	}
	rows, err := gormstore.Pool(st).QueryContext(context.Background(), "SELECT s.received_at, e.created_at FROM report_events AS e JOIN "+
		gormstore.StagingTable+" AS s ON s.id = e.report_id")
	must(t, err)
	defer rows.Close()
	moved := map[time.Duration]int{}
	for rows.Next() {
		var received, created time.Time
		must(t, rows.Scan(&received, &created))
		moved[created.Sub(received)]++
	}
	must(t, rows.Err())
	if want := map[time.Duration]int{0: 7, wait - slack: 1}; len(moved) != 2 || moved[0] != 7 || moved[wait-slack] != 1 {
		t.Errorf("events dated after their receipt by %v, want %v", moved, want)
	}
}

package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// deliver leases and finishes every delivery due at now as delivered.
func deliver(t testing.TB, h OutboxHarness, now time.Time) int {
	t.Helper()
	ctx := context.Background()
	due := dueAt(t, h, now)
	for _, d := range due {
		if ok, err := h.Deliveries.Lease(ctx, d.ID, "w", now, now.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("Lease %d = %v, %v", d.ID, ok, err)
		}
		l, err := h.Deliveries.Load(ctx, d.ID)
		if err != nil {
			t.Fatal(err)
		}
		a := domain.Attempt{EventID: l.Event.ID(), EndpointID: l.Endpoint.ID, At: now, StatusCode: 200}
		if held, err := h.Deliveries.Finish(ctx, "w", ports.DeliveryOutcome{ID: d.ID, EndpointSeq: d.EndpointSeq, Attempt: a,
			State: ports.DeliveryDelivered}); !held || err != nil {
			t.Fatalf("Finish %d = %v, %v", d.ID, held, err)
		}
	}
	return len(due)
}

func testRedeliver(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	now := outboxNow()
	a := mustEndpoint(t, h, "acme")
	b := mustEndpoint(t, h, "acme", domain.EventAccepted)
	mustEndpoint(t, h, "other")
	old := storeOutboxReport(t, h, "acme", "CR-RE-1", now.Add(-2*time.Hour))
	storeOutboxReport(t, h, "acme", "CR-RE-2", now.Add(-time.Hour))
	if _, _, err := h.Decisions.Decide(ctx, old, accepted(now.Add(-30*time.Minute))); err != nil {
		t.Fatal(err)
	}
	storeOutboxReport(t, h, "other", "CR-RE-3", now)
	mustDispatch(t, h, now)
	if n := deliver(t, h, now); n != 5 {
		t.Fatalf("%d deliveries, want 5 (3 to a, 1 to b, 1 to other)", n)
	}
	events := allEvents(t, h, "acme")
	first := events[0]
	p := ports.EventPosition{CreatedAt: first.CreatedAt, Seq: first.Seq}
	later := now.Add(time.Minute)
	if n, err := h.Deliveries.RedeliverEvent(ctx, "acme", p, later); err != nil || n != 1 {
		t.Fatalf("RedeliverEvent = %d, %v; want 1 (endpoint a only takes report.received)", n, err)
	}
	due := dueAt(t, h, later)
	if len(due) != 1 || due[0].EndpointSeq != a.Seq {
		t.Fatalf("due after a redelivery: %+v", due)
	}
	if l, err := h.Deliveries.Load(ctx, due[0].ID); err != nil || l.Attempts != 0 || l.Event.ID() != first.ID() {
		t.Fatalf("the redelivered delivery: %+v, %v; want its attempts counted from 0", l, err)
	}
	if _, err := h.Deliveries.RedeliverEvent(ctx, "other", p, later); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another partner's redelivery = %v; want ErrNotFound", err)
	}
	deliver(t, h, later)
	// Since the decision: the accepted event and CR-RE-2's received,
	// to every endpoint that takes them.
	since := now.Add(-90 * time.Minute)
	if n, err := h.Deliveries.RedeliverSince(ctx, since, "", later); err != nil || n != 4 {
		t.Fatalf("RedeliverSince = %d, %v; want 4 (2 to a, 1 to b, other's 1)", n, err)
	}
	deliver(t, h, later)
	if n, err := h.Deliveries.RedeliverSince(ctx, since, b.ID, later); err != nil || n != 1 {
		t.Fatalf("RedeliverSince to b = %d, %v; want 1", n, err)
	}
	// A redelivery while an attempt is under way takes the lease from its
	// holder, whose finish then records its attempt only, and keeps the
	// delivery from every other replica until that lease runs out or that
	// finish comes: the redelivery is then due at once.
	due = dueAt(t, h, later)
	if ok, err := h.Deliveries.Lease(ctx, due[0].ID, "x", later, later.Add(time.Minute)); !ok || err != nil {
		t.Fatalf("Lease = %v, %v", ok, err)
	}
	if _, err := h.Deliveries.RedeliverSince(ctx, since, b.ID, later); err != nil {
		t.Fatal(err)
	}
	if got := dueAt(t, h, later.Add(30*time.Second)); len(got) != 0 {
		t.Fatalf("a redelivered delivery under a live lease is due: %+v", got)
	}
	l, _ := h.Deliveries.Load(ctx, due[0].ID)
	held, err := h.Deliveries.Finish(ctx, "x", ports.DeliveryOutcome{ID: due[0].ID, EndpointSeq: b.Seq, State: ports.DeliveryDelivered,
		Attempt: domain.Attempt{EventID: l.Event.ID(), At: later, StatusCode: 200}})
	if err != nil || held {
		t.Fatalf("the old holder's Finish = %v, %v; want false", held, err)
	}
	if got := dueAt(t, h, later.Add(30*time.Second)); len(got) != 1 {
		t.Fatalf("after the old holder's finish, within its lease: %+v; want the redelivery due", got)
	}
	// A lease another replica took since is not freed by a late finish.
	if ok, err := h.Deliveries.Lease(ctx, due[0].ID, "y", later.Add(30*time.Second), later.Add(2*time.Minute)); !ok || err != nil {
		t.Fatalf("Lease by y = %v, %v", ok, err)
	}
	if held, err := h.Deliveries.Finish(ctx, "x", ports.DeliveryOutcome{ID: due[0].ID, EndpointSeq: b.Seq, State: ports.DeliveryDelivered,
		Attempt: domain.Attempt{EventID: l.Event.ID(), At: later, StatusCode: 200}}); err != nil || held {
		t.Fatalf("x's second Finish = %v, %v; want false", held, err)
	}
	if got := dueAt(t, h, later.Add(time.Minute)); len(got) != 0 {
		t.Fatalf("under y's lease after x's late finish: %+v; want none due", got)
	}
	// A second redelivery takes the lease from y; x's finish, later still,
	// frees nothing of y's (y's attempt may be under way), and y's does.
	if _, err := h.Deliveries.RedeliverSince(ctx, since, b.ID, later.Add(time.Minute)); err != nil {
		t.Fatal(err)
	}
	if held, err := h.Deliveries.Finish(ctx, "x", ports.DeliveryOutcome{ID: due[0].ID, EndpointSeq: b.Seq, State: ports.DeliveryDelivered,
		Attempt: domain.Attempt{EventID: l.Event.ID(), At: later, StatusCode: 200}}); err != nil || held {
		t.Fatalf("x's third Finish = %v, %v; want false", held, err)
	}
	if got := dueAt(t, h, later.Add(90*time.Second)); len(got) != 0 {
		t.Fatalf("after a second redelivery took y's lease and x finished late: %+v; want none due while y's attempt may be under way", got)
	}
	if ok, err := h.Deliveries.Lease(ctx, due[0].ID, "z", later.Add(90*time.Second), later.Add(3*time.Minute)); ok || err != nil {
		t.Fatalf("Lease by z within y's time = %v, %v; want false", ok, err)
	}
	if held, err := h.Deliveries.Finish(ctx, "y", ports.DeliveryOutcome{ID: due[0].ID, EndpointSeq: b.Seq, State: ports.DeliveryDelivered,
		Attempt: domain.Attempt{EventID: l.Event.ID(), At: later, StatusCode: 200}}); err != nil || held {
		t.Fatalf("y's Finish after the second redelivery = %v, %v; want false", held, err)
	}
	if got := dueAt(t, h, later.Add(90*time.Second)); len(got) != 1 {
		t.Fatalf("after y's finish: %+v; want the second redelivery due", got)
	}
	// A name a store could take for a lost lease's mark is no owner.
	for _, owner := range []string{"", ports.LostLease + "y", strings.Repeat("o", ports.MaxLeaseOwner+1)} {
		if ok, err := h.Deliveries.Lease(ctx, due[0].ID, owner, later.Add(90*time.Second), later.Add(3*time.Minute)); ok || err == nil {
			t.Errorf("Lease by %q = %v, %v; want an error", owner, ok, err)
		}
	}
	if held, err := h.Deliveries.Finish(ctx, ports.LostLease+"y", ports.DeliveryOutcome{ID: due[0].ID, EndpointSeq: b.Seq, State: ports.DeliveryDelivered,
		Attempt: domain.Attempt{EventID: l.Event.ID(), At: later, StatusCode: 200}}); held || err == nil {
		t.Errorf("Finish by a lost lease's mark = %v, %v; want an error", held, err)
	}
	// The longest owner's mark fits, and a redelivery while a mark is
	// there leaves it as it is: the holder's finish still frees it.
	longest := strings.Repeat("o", ports.MaxLeaseOwner)
	at := later.Add(90 * time.Second)
	if ok, err := h.Deliveries.Lease(ctx, due[0].ID, longest, at, at.Add(time.Minute)); !ok || err != nil {
		t.Fatalf("Lease by the longest owner = %v, %v", ok, err)
	}
	for range 2 {
		if _, err := h.Deliveries.RedeliverSince(ctx, since, b.ID, at); err != nil {
			t.Fatal(err)
		}
	}
	if got := dueAt(t, h, at.Add(30*time.Second)); len(got) != 0 {
		t.Fatalf("after two redeliveries under the longest owner's lease: %+v; want none due", got)
	}
	if held, err := h.Deliveries.Finish(ctx, longest, ports.DeliveryOutcome{ID: due[0].ID, EndpointSeq: b.Seq, State: ports.DeliveryDelivered,
		Attempt: domain.Attempt{EventID: l.Event.ID(), At: at, StatusCode: 200}}); err != nil || held {
		t.Fatalf("the longest owner's Finish = %v, %v; want false", held, err)
	}
	if got := dueAt(t, h, at.Add(30*time.Second)); len(got) != 1 {
		t.Fatalf("after the longest owner's finish: %+v; want the redelivery due (its mark freed)", got)
	}
}

func testPurgeEvents(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	now := outboxNow()
	ep := mustEndpoint(t, h, "acme")
	for i := range 5 {
		storeOutboxReport(t, h, "acme", "CR-OLD", now.Add(-48*time.Hour+time.Duration(i)*time.Minute))
	}
	young := storeOutboxReport(t, h, "acme", "CR-YOUNG", now)
	mustDispatch(t, h, now)
	deliver(t, h, now)
	before := now.Add(-24 * time.Hour)
	if n, err := h.Deliveries.PurgeEvents(ctx, before, 2, false); err != nil || n != 5 {
		t.Fatalf("a dry run = %d, %v; want all 5 old events counted", n, err)
	}
	if n := len(allEvents(t, h, "acme")); n != 6 {
		t.Fatalf("a dry run deleted: %d events left", n)
	}
	var purged int64
	for {
		n, err := h.Deliveries.PurgeEvents(ctx, before, 2, true)
		if err != nil {
			t.Fatal(err)
		}
		if n == 0 {
			break
		}
		if n > 2 {
			t.Fatalf("PurgeEvents deleted %d, over its limit of 2", n)
		}
		purged += n
	}
	left := allEvents(t, h, "acme")
	if purged != 5 || len(left) != 1 || left[0].Receipt.ID != young {
		t.Fatalf("purged %d, left %+v; want 5 purged, the young one left", purged, left)
	}
	log, err := h.Endpoints.Attempts(ctx, "acme", ep.ID, 100)
	if err != nil || len(log) != 1 || log[0].EventID != left[0].ID() {
		t.Fatalf("attempts after the purge: %+v, %v; want the young event's only", log, err)
	}
	if n, oldest, err := h.Deliveries.Backlog(ctx); err != nil || n != 0 || !oldest.IsZero() {
		t.Fatalf("Backlog after = %d, %v, %v", n, oldest, err)
	}
}

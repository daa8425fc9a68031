package ports_test

import (
	"context"
	"runtime"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// TestDeliveryHangingEndpointHoldsItsShare: a receiver that never
// answers, whose twenty deliveries are due first, holds at most
// webhooks.workers_per_endpoint (2) of the 4 workers; the other
// endpoint's five deliveries, due after them, are all delivered
// meanwhile.
func TestDeliveryHangingEndpointHoldsItsShare(t *testing.T) {
	t.Parallel()
	r := newRig(t, options())
	r.send.answer = func(ctx context.Context, req ports.WebhookRequest) ports.WebhookResult {
		if req.EndpointID == "we_hang" {
			return hang(ctx, req)
		}
		return ports.WebhookResult{StatusCode: 200}
	}
	r.endpoint("we_hang", "slow")
	r.endpoint("we_fine", "fine")
	for i := range 20 {
		r.event("slow", int64(i+1))
	}
	for i := range 5 {
		r.event("fine", int64(100+i))
	}
	r.start(t)
	waitFor(t, "the other endpoint's five deliveries", func() bool { return delivered(r, 2) == 5 })
	settle()
	r.send.mu.Lock()
	most, hanging := r.send.most["we_hang"], r.send.now["we_hang"]
	r.send.mu.Unlock()
	if most != 2 || hanging != 2 {
		t.Errorf("the hanging endpoint held %d workers at most, %d now; want 2 and 2", most, hanging)
	}
	if n := len(r.send.requests("we_hang")); n != 2 {
		t.Errorf("%d POSTs started to the hanging endpoint, want 2 (its share)", n)
	}
}

// TestDeliveryWorkersBoundedInTotal: however many endpoints have due
// deliveries, no more than webhooks.workers POSTs run at once.
func TestDeliveryWorkersBoundedInTotal(t *testing.T) {
	t.Parallel()
	r := newRig(t, options())
	release := make(chan struct{})
	r.send.answer = heldUntil(release, ports.WebhookResult{StatusCode: 200})
	for i := range 6 {
		p := string(rune('a' + i))
		r.endpoint("we_"+p, p)
		r.event(p, int64(i+1))
		r.event(p, int64(i+11))
	}
	r.start(t)
	waitFor(t, "four POSTs", func() bool { return len(r.send.requests("")) == 4 })
	settle()
	if n := len(r.send.requests("")); n != 4 {
		t.Errorf("%d POSTs at once, want 4 (webhooks.workers)", n)
	}
	close(release)
	waitFor(t, "every delivery", func() bool { return len(r.send.requests("")) == 12 })
	r.send.mu.Lock()
	defer r.send.mu.Unlock()
	if r.send.mostAll != 4 {
		t.Errorf("%d POSTs at once at most, want 4", r.send.mostAll)
	}
}

// TestDeliveryLostLeaseIsAtLeastOnce: a replica whose attempt outlives
// its lease (a pause, a clock jump) loses the delivery to another, which
// delivers it; the first one's late outcome is recorded as an attempt
// and changes nothing else: the receiver got it twice, at least once.
func TestDeliveryLostLeaseIsAtLeastOnce(t *testing.T) {
	t.Parallel()
	a := newRig(t, options())
	answerA := make(chan struct{})
	a.send.answer = heldUntil(answerA, ports.WebhookResult{StatusCode: 500, Error: domain.AttemptHTTPStatus})
	a.endpoint("we_a", "p")
	a.event("p", 1)
	a.start(t)
	waitFor(t, "replica A's POST", func() bool { return len(a.send.requests("")) == 1 })
	if d := a.store.Deliveries()[0]; d.LeaseOwner != a.d.Owner() || !d.LeaseUntil.Equal(t0.Add(10*time.Second+ports.LeaseMargin)) {
		t.Fatalf("A's lease: %s until %v, want %s until webhooks.timeout + 60 s", d.LeaseOwner, d.LeaseUntil, a.d.Owner())
	}

	// Replica B shares A's store and clock.
	b := &rig{store: a.store, clock: a.clock, send: &sender{}, obs: &observer{}, log: &syncBuffer{}}
	var err error
	if b.d, err = ports.NewDeliveries(b.store, b.send, fakes.EventEncoder{}, b.clock, b.obs, options()); err != nil {
		t.Fatal(err)
	}
	b.start(t)
	settle()
	if n := len(b.send.requests("")); n != 0 {
		t.Fatalf("replica B attempted a delivery A's live lease holds (%d POSTs)", n)
	}
	a.clock.Add(10*time.Second + ports.LeaseMargin + time.Second) // A's lease ran out
	waitFor(t, "replica B's delivery", func() bool { return a.store.Deliveries()[0].State == ports.DeliveryDelivered })
	close(answerA)
	waitFor(t, "A's late attempt recorded", func() bool { return len(a.store.Attempts()) == 2 })
	settle()
	d := a.store.Deliveries()[0]
	if d.State != ports.DeliveryDelivered || d.Attempts != 1 || d.LeaseOwner != "" {
		t.Errorf("after A's late 500: %+v, want B's outcome kept (delivered, 1 attempt, no lease)", d)
	}
	if a.obs.gaveUpCount() != 0 || len(a.send.requests(""))+len(b.send.requests("")) != 2 {
		t.Errorf("gave up %d, POSTs %d+%d; want 0 and 1+1 (A never starts again what it attempts)", a.obs.gaveUpCount(), len(a.send.requests("")), len(b.send.requests("")))
	}
}

// TestDeliveryStopLeavesNothingRunning: cancelling Run's context, or
// Close, cuts the POSTs under way short, records them, and returns only
// when every goroutine the worker started has ended; Run after Close is
// refused.
func TestDeliveryStopLeavesNothingRunning(t *testing.T) {
	// Not parallel: it counts the process' goroutines.
	before := runtime.NumGoroutine()
	for _, viaClose := range []bool{false, true} {
		r := newRig(t, options())
		r.send.answer = hang
		r.endpoint("we_a", "a")
		r.endpoint("we_b", "b")
		for i := range 3 {
			r.event("a", int64(i+1))
			r.event("b", int64(i+11))
		}
		stop := r.start(t)
		waitFor(t, "four hanging POSTs", func() bool { return len(r.send.requests("")) == 4 })
		if viaClose {
			if err := r.d.Close(); err != nil {
				t.Fatal(err)
			}
			if err := r.d.Run(context.Background()); err != ports.ErrDeliveriesClosed {
				t.Errorf("Run after Close: %v, want ErrDeliveriesClosed", err)
			}
		}
		stop()
		if n := len(r.store.Attempts()); n != 4 {
			t.Errorf("close=%v: %d attempts recorded, want the 4 cut short", viaClose, n)
		}
		for _, d := range r.store.Deliveries() {
			if d.LeaseOwner != "" {
				t.Errorf("close=%v: delivery %d still leased by %s", viaClose, d.ID, d.LeaseOwner)
			}
		}
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		buf := make([]byte, 1<<16)
		t.Errorf("%d goroutines after the workers stopped, %d before:\n%s", n, before, buf[:runtime.Stack(buf, true)])
	}
}

// TestDeliveryPartnersHangingHoldTheirShare: a partner whose two
// endpoints never answer, with twenty deliveries each due first, holds at
// most webhooks.workers_per_partner (2) of the 4 workers, though each of
// its endpoints' share (2) would let it take all 4; the other partner's
// five deliveries, due after them, are all delivered meanwhile (before
// the partner share, they waited for the whole backlog to time out).
func TestDeliveryPartnersHangingHoldTheirShare(t *testing.T) {
	t.Parallel()
	o := options()
	o.WorkersPerPartner = 2
	r := newRig(t, o)
	r.send.answer = func(ctx context.Context, req ports.WebhookRequest) ports.WebhookResult {
		if req.EndpointID != "we_fine" {
			return hang(ctx, req)
		}
		return ports.WebhookResult{StatusCode: 200}
	}
	r.endpoint("we_hang1", "slow")
	r.endpoint("we_hang2", "slow")
	r.endpoint("we_fine", "fine")
	for i := range 20 {
		r.event("slow", int64(i+1))
	}
	for i := range 5 {
		r.event("fine", int64(100+i))
	}
	r.start(t)
	waitFor(t, "the other partner's five deliveries", func() bool { return delivered(r, 3) == 5 })
	settle()
	r.send.mu.Lock()
	hanging := r.send.now["we_hang1"] + r.send.now["we_hang2"]
	r.send.mu.Unlock()
	started := len(r.send.requests("we_hang1")) + len(r.send.requests("we_hang2"))
	if hanging != 2 || started != 2 {
		t.Errorf("the hanging partner holds %d workers now, %d POSTs started; want 2 and 2 (its share)", hanging, started)
	}
	for _, c := range r.store.DueCalls() {
		if len(c.BusyPartners) > 0 && (len(c.BusyPartners) != 1 || c.BusyPartners[0] != "slow") {
			t.Errorf("Due was told the partners %v at their share; only slow can be", c.BusyPartners)
		}
	}
}

// TestDeliveryShareTakenLooksAgainAtOnce: when the deliveries a look
// found are all of a partner at its share (one worker each here) and
// workers are free, the worker looks again at once, leaving that partner
// out, instead of waiting for its poll (a minute here) or a freed worker:
// the other partner's delivery, due after the backlog, goes out at once.
func TestDeliveryShareTakenLooksAgainAtOnce(t *testing.T) {
	t.Parallel()
	o := options()
	o.WorkersPerEndpoint, o.WorkersPerPartner, o.PollInterval = 1, 1, time.Minute
	r := newRig(t, o)
	r.send.answer = func(ctx context.Context, req ports.WebhookRequest) ports.WebhookResult {
		if req.EndpointID != "we_fine" {
			return hang(ctx, req)
		}
		return ports.WebhookResult{StatusCode: 200}
	}
	r.endpoint("we_hang", "slow")
	r.endpoint("we_fine", "fine")
	for i := range 10 {
		r.event("slow", int64(i+1))
	}
	r.event("fine", 100)
	r.start(t)
	waitFor(t, "the other partner's delivery, well within the poll", func() bool { return delivered(r, 2) == 1 })
}

// delivered counts the deliveries to endpoint seq that were delivered.
func delivered(r *rig, seq int64) int {
	n := 0
	for _, d := range r.store.Deliveries() {
		if d.EndpointSeq == seq && d.State == ports.DeliveryDelivered {
			n++
		}
	}
	return n
}

package ports_test

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/ports"
)

// TestDeliveryBacklogOfABusyEndpointIsNotReadAtEveryEvent: while an
// endpoint's workers hang and its backlog is due first, each event
// committed here makes the worker read only what came due since its last
// look, not the backlog again (issue 33: a hanging receiver must not slow
// reports; reading its backlog at every event cost a fifth of the CPU);
// the other endpoint's deliveries are found all the same, and once the
// hanging workers end, a look at everything due takes the backlog up
// again until every delivery is made.
func TestDeliveryBacklogOfABusyEndpointIsNotReadAtEveryEvent(t *testing.T) {
	t.Parallel()
	o := options()
	o.PollInterval = time.Hour // no look at everything on a timer: only when a worker frees one
	r := newRig(t, o)
	release := make(chan struct{})
	held := heldUntil(release, ports.WebhookResult{StatusCode: 204})
	r.send.answer = func(ctx context.Context, req ports.WebhookRequest) ports.WebhookResult {
		if req.EndpointID == "we_slow" {
			return held(ctx, req)
		}
		return ports.WebhookResult{StatusCode: 204}
	}
	r.endpoint("we_slow", "slow")
	r.endpoint("we_fine", "fine")
	for i := range 20 {
		r.event("slow", int64(i+1))
	}
	r.start(t)
	waitFor(t, "the slow endpoint's two workers", func() bool { return len(r.send.requests("we_slow")) == 2 })
	r.d.Notify() // a look that finds nothing it may take: the backlog was read
	settle()
	before := len(r.store.DueCalls())
	for i := range 30 {
		r.event("slow", int64(100+i))
		r.d.Notify()
		time.Sleep(time.Millisecond)
	}
	settle()
	calls := r.store.DueCalls()[before:]
	full := 0
	for _, c := range calls {
		if c.After.IsZero() {
			full++
		}
	}
	if len(calls) == 0 || full != 0 {
		t.Errorf("%d of %d looks read everything due while the busy endpoint's workers hung; want none of at least one", full, len(calls))
	}
	for i := range 3 {
		r.event("fine", int64(200+i))
		r.d.Notify()
	}
	waitFor(t, "the other endpoint's three deliveries", func() bool { return len(r.send.requests("we_fine")) == 3 })
	if n := len(r.send.requests("we_slow")); n != 2 {
		t.Errorf("%d POSTs to the slow endpoint while its two hung, want 2", n)
	}
	seen := len(r.store.DueCalls())
	close(release)
	waitFor(t, "all 50 of the slow endpoint's deliveries", func() bool { return len(r.send.requests("we_slow")) == 50 })
	full = 0
	for _, c := range r.store.DueCalls()[seen:] {
		if c.After.IsZero() {
			full++
		}
	}
	if full == 0 {
		t.Error("no look at everything due after the hanging workers ended")
	}
}

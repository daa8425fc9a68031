package storetest

import (
	"context"
	"errors"
	"maps"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

func testDispatch(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	now := outboxNow()
	all := mustEndpoint(t, h, "acme")
	decisions := mustEndpoint(t, h, "acme", domain.EventAccepted, domain.EventRejected)
	off := mustEndpoint(t, h, "acme")
	if err := h.Endpoints.SetEndpointStatus(ctx, off.ID, domain.EndpointDisabled, "off"); err != nil {
		t.Fatal(err)
	}
	mustEndpoint(t, h, "other")
	id := storeOutboxReport(t, h, "acme", "CR-DISP", now)
	if _, _, err := h.Decisions.Decide(ctx, id, accepted(now)); err != nil {
		t.Fatal(err)
	}
	// A partner without endpoints: its event is written dispatched (or,
	// on a cluster, dispatched with no delivery).
	storeOutboxReport(t, h, "nobody", "CR-DISP", now)
	want := 2
	if h.AllUndispatched {
		want = 3
	}
	if n := mustDispatch(t, h, now); n != want {
		t.Fatalf("Dispatch = %d events, want %d", n, want)
	}
	if n := mustDispatch(t, h, now); n != 0 {
		t.Fatalf("Dispatch again = %d events, want 0", n)
	}
	due := dueAt(t, h, now)
	perEndpoint := map[int64]int{}
	for _, d := range due {
		perEndpoint[d.EndpointSeq]++
	}
	// received goes to the endpoint of every type; accepted to both.
	if len(due) != 3 || perEndpoint[all.Seq] != 2 || perEndpoint[decisions.Seq] != 1 {
		t.Fatalf("due deliveries %+v; want 2 to %d and 1 to %d", due, all.Seq, decisions.Seq)
	}
	if got := dueAt(t, h, now.Add(-time.Second)); len(got) != 0 {
		t.Fatalf("%d deliveries due before they were made due", len(got))
	}
	busy, err := h.Deliveries.Due(ctx, now, 10, []int64{all.Seq}, nil, time.Time{})
	if err != nil || len(busy) != 1 || busy[0].EndpointSeq != decisions.Seq {
		t.Fatalf("Due with %d busy = %+v, %v; want only the other endpoint's", all.Seq, busy, err)
	}
	// A look after a time reads only what came due since: a report
	// stored and dispatched a minute on, due then, and none of the first.
	later := now.Add(time.Minute)
	storeOutboxReport(t, h, "acme", "CR-DISP-2", later)
	if n := mustDispatch(t, h, later); n != 1 {
		t.Fatalf("Dispatch a minute on = %d events, want 1", n)
	}
	for _, c := range []struct {
		after time.Time
		want  int
	}{{time.Time{}, 4}, {now, 4}, {now.Add(time.Nanosecond), 1}, {later, 1}, {later.Add(time.Nanosecond), 0}} {
		got, err := h.Deliveries.Due(ctx, later, 10, nil, nil, c.after)
		if err != nil || len(got) != c.want {
			t.Fatalf("Due at %s after %s = %+v, %v; want %d", later, c.after, got, err, c.want)
		}
	}
	// Each due delivery names its endpoint's partner, and the partners at
	// their share are left out (the worker's webhooks.workers_per_partner).
	storeOutboxReport(t, h, "other", "CR-DISP-3", later)
	if n := mustDispatch(t, h, later); n != 1 {
		t.Fatalf("Dispatch of another partner's report = %d events, want 1", n)
	}
	for _, c := range []struct {
		busy []string
		want map[string]int
	}{
		{nil, map[string]int{"acme": 4, "other": 1}},
		{[]string{"acme"}, map[string]int{"other": 1}},
		{[]string{"other"}, map[string]int{"acme": 4}},
		{[]string{"acme", "other"}, map[string]int{}},
		{[]string{"nobody"}, map[string]int{"acme": 4, "other": 1}},
	} {
		got, err := h.Deliveries.Due(ctx, later, 10, nil, c.busy, time.Time{})
		perPartner := map[string]int{}
		for _, d := range got {
			perPartner[d.Partner]++
		}
		if err != nil || !maps.Equal(perPartner, c.want) {
			t.Fatalf("Due with the partners %v busy = %v (%+v), %v; want %v", c.busy, perPartner, got, err, c.want)
		}
	}
}

// oneDelivery makes one report, one endpoint taking every type and its
// delivery of the report's report.received, due at now.
func oneDelivery(t *testing.T, h OutboxHarness, now time.Time) (domain.Endpoint, ports.DeliveryRef) {
	t.Helper()
	ep := mustEndpoint(t, h, "acme", domain.EventReceived)
	storeOutboxReport(t, h, "acme", "CR-ONE", now)
	mustDispatch(t, h, now)
	due := dueAt(t, h, now)
	if len(due) != 1 {
		t.Fatalf("%d deliveries due, want 1", len(due))
	}
	return ep, due[0]
}

func testLease(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	now := outboxNow()
	_, d := oneDelivery(t, h, now)
	until := now.Add(70 * time.Second)
	lease := func(owner string, at time.Time) bool {
		t.Helper()
		ok, err := h.Deliveries.Lease(ctx, d.ID, owner, at, at.Add(70*time.Second))
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !lease("a", now) {
		t.Fatal("the first lease was refused")
	}
	if lease("b", now.Add(time.Second)) || lease("b", until) {
		t.Fatal("a live lease was taken by another owner")
	}
	if got := dueAt(t, h, now.Add(time.Second)); len(got) != 0 {
		t.Fatalf("a leased delivery is due: %+v", got)
	}
	if !lease("a", now.Add(time.Second)) {
		t.Fatal("the holder could not renew its own lease")
	}
	after := now.Add(time.Second).Add(70*time.Second + time.Millisecond)
	if got := dueAt(t, h, after); len(got) != 1 {
		t.Fatalf("a run-out lease's delivery is not due: %+v", got)
	}
	if !lease("b", after) {
		t.Fatal("a run-out lease was not taken over")
	}
	if lease("a", after) {
		t.Fatal("the old holder took back a lease taken over")
	}
	if lease("c", now.Add(-time.Hour)) {
		t.Fatal("a delivery not yet due was leased")
	}
}

func attempt(e domain.Event, ep domain.Endpoint, at time.Time, status int, class string) domain.Attempt {
	return domain.Attempt{EventID: e.ID(), EndpointID: ep.ID, At: at.UTC().Truncate(time.Millisecond), StatusCode: status,
		Error: class, Duration: 1500 * time.Millisecond}
}

func testFinish(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	now := outboxNow()
	ep, d := oneDelivery(t, h, now)
	if ok, err := h.Deliveries.Lease(ctx, d.ID, "a", now, now.Add(time.Minute)); !ok || err != nil {
		t.Fatalf("Lease = %v, %v", ok, err)
	}
	loaded, err := h.Deliveries.Load(ctx, d.ID)
	if err != nil || loaded.Event.Type != domain.EventReceived || loaded.Endpoint.Secret != ep.Secret || loaded.Attempts != 0 {
		t.Fatalf("Load = %+v, %v", loaded, err)
	}
	if _, err := h.Deliveries.Finish(ctx, "a", ports.DeliveryOutcome{ID: d.ID, EndpointSeq: ep.Seq,
		Attempt: attempt(loaded.Event, ep, now, 500, domain.AttemptHTTPStatus), State: "retrying"}); err == nil {
		t.Fatal("Finish with a state that is no delivery's succeeded")
	}
	// Not the holder: the attempt is logged, nothing else changes.
	failed := attempt(loaded.Event, ep, now, 500, domain.AttemptHTTPStatus)
	held, err := h.Deliveries.Finish(ctx, "b", ports.DeliveryOutcome{ID: d.ID, EndpointSeq: ep.Seq, Attempt: failed,
		State: ports.DeliveryDelivered})
	if err != nil || held {
		t.Fatalf("Finish by another owner = %v, %v; want false", held, err)
	}
	// The holder: pending again at the next attempt's time.
	next := now.Add(5 * time.Second)
	held, err = h.Deliveries.Finish(ctx, "a", ports.DeliveryOutcome{ID: d.ID, EndpointSeq: ep.Seq, Attempt: failed,
		State: ports.DeliveryPending, NextAt: next})
	if err != nil || !held {
		t.Fatalf("Finish by the holder = %v, %v", held, err)
	}
	if got := dueAt(t, h, next.Add(-time.Millisecond)); len(got) != 0 {
		t.Fatalf("due before its next attempt: %+v", got)
	}
	if got := dueAt(t, h, next); len(got) != 1 {
		t.Fatalf("not due at its next attempt: %+v", got)
	}
	if ok, _ := h.Deliveries.Lease(ctx, d.ID, "c", next, next.Add(time.Minute)); !ok {
		t.Fatal("a finished lease was not free")
	}
	if again, _ := h.Deliveries.Load(ctx, d.ID); again.Attempts != 1 {
		t.Fatalf("attempts counted %d, want 1 (the holder's only)", again.Attempts)
	}
	ok := attempt(loaded.Event, ep, next, 204, "")
	if held, err := h.Deliveries.Finish(ctx, "c", ports.DeliveryOutcome{ID: d.ID, EndpointSeq: ep.Seq, Attempt: ok,
		State: ports.DeliveryDelivered, DisableReason: "no success since"}); err != nil || !held {
		t.Fatalf("Finish delivered = %v, %v", held, err)
	}
	if got := dueAt(t, h, next.Add(time.Hour)); len(got) != 0 {
		t.Fatalf("a delivered delivery is due: %+v", got)
	}
	got, _ := h.Endpoints.GetEndpoint(ctx, "acme", ep.ID)
	if !got.LastSuccessAt.Equal(ok.At) || got.Status != domain.EndpointDisabled || got.DisabledReason != "no success since" {
		t.Fatalf("endpoint after: last success %v, %s %q", got.LastSuccessAt, got.Status, got.DisabledReason)
	}
	log, err := h.Endpoints.Attempts(ctx, "acme", ep.ID, 10)
	if err != nil || len(log) != 3 || log[0] != ok || log[1] != failed || log[2] != failed {
		t.Fatalf("attempts = %+v, %v;\nwant newest first: %+v, %+v twice", log, err, ok, failed)
	}
}

func testAttemptsBounded(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	now := outboxNow()
	ep, d := oneDelivery(t, h, now)
	loaded, err := h.Deliveries.Load(ctx, d.ID)
	if err != nil {
		t.Fatal(err)
	}
	// More than twice what is listed: a store that keeps some more than it
	// lists (gormstore trims in batches) has trimmed by then.
	const made = 2*domain.MaxAttemptsListed + 50
	for i := range made {
		a := attempt(loaded.Event, ep, now.Add(time.Duration(i)*time.Second), 500+i, domain.AttemptHTTPStatus)
		if _, err := h.Deliveries.Finish(ctx, "nobody", ports.DeliveryOutcome{ID: d.ID, EndpointSeq: ep.Seq, Attempt: a,
			State: ports.DeliveryFailed}); err != nil {
			t.Fatal(err)
		}
	}
	log, err := h.Endpoints.Attempts(ctx, "acme", ep.ID, 1000)
	if err != nil || len(log) != domain.MaxAttemptsListed {
		t.Fatalf("%d attempts kept, %v; want %d", len(log), err, domain.MaxAttemptsListed)
	}
	if log[0].StatusCode != 500+made-1 || log[len(log)-1].StatusCode != 500+made-domain.MaxAttemptsListed {
		t.Fatalf("kept statuses %d..%d; want the newest", log[0].StatusCode, log[len(log)-1].StatusCode)
	}
	if few, _ := h.Endpoints.Attempts(ctx, "acme", ep.ID, 3); len(few) != 3 || few[0] != log[0] {
		t.Fatalf("a limit of 3: %+v", few)
	}
}

func testLoadGone(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	now := outboxNow()
	ep, d := oneDelivery(t, h, now)
	if err := h.Endpoints.DeleteEndpoint(ctx, "acme", ep.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Deliveries.Load(ctx, d.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("Load of a deleted endpoint's delivery = %v; want ErrNotFound", err)
	}
	if got := dueAt(t, h, now); len(got) != 0 {
		t.Fatalf("a deleted endpoint's deliveries are due: %+v", got)
	}
}

func testBacklog(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	now := outboxNow()
	if n, oldest, err := h.Deliveries.Backlog(ctx); err != nil || n != 0 || !oldest.IsZero() {
		t.Fatalf("empty Backlog = %d, %v, %v", n, oldest, err)
	}
	mustEndpoint(t, h, "acme")
	storeOutboxReport(t, h, "acme", "CR-B1", now.Add(-time.Hour))
	storeOutboxReport(t, h, "acme", "CR-B2", now)
	mustDispatch(t, h, now)
	if n, oldest, err := h.Deliveries.Backlog(ctx); err != nil || n != 2 || !oldest.Equal(now.Add(-time.Hour)) {
		t.Fatalf("Backlog = %d, %v, %v; want 2, %v", n, oldest, err, now.Add(-time.Hour))
	}
}

func testBackoffice(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow().Truncate(time.Second)
	b := h.Backoffice
	if err := b.AddBackofficeClient(ctx, ports.BackofficeClient{Name: "core", CreatedAt: at}, "h1"); err != nil {
		t.Fatal(err)
	}
	if err := b.AddBackofficeClient(ctx, ports.BackofficeClient{Name: "core", CreatedAt: at}, "h2"); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("a taken name = %v; want ErrConflict", err)
	}
	if err := b.AddBackofficeClient(ctx, ports.BackofficeClient{Name: "audit", CreatedAt: at}, "h3"); err != nil {
		t.Fatal(err)
	}
	if c, err := b.BackofficeClientByHash(ctx, "h1"); err != nil || c.Name != "core" || !c.CreatedAt.Equal(at) {
		t.Fatalf("ByHash = %+v, %v", c, err)
	}
	if _, err := b.BackofficeClientByHash(ctx, "h2"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("ByHash of no client = %v", err)
	}
	list, err := b.ListBackofficeClients(ctx)
	names := []string{}
	for _, c := range list {
		names = append(names, c.Name)
	}
	if err != nil || !slices.Equal(names, []string{"audit", "core"}) {
		t.Fatalf("List = %v, %v", names, err)
	}
	if err := b.RemoveBackofficeClient(ctx, "core"); err != nil {
		t.Fatal(err)
	}
	if _, err := b.BackofficeClientByHash(ctx, "h1"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a removed client's secret = %v; want ErrNotFound", err)
	}
	if err := b.RemoveBackofficeClient(ctx, "core"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("removing again = %v; want ErrNotFound", err)
	}
}

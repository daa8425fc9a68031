package ports_test

import (
	"context"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// TestNewDeliveriesRefusesMissingParts: each missing part, and each
// option out of its bounds, is refused by the constructor.
func TestNewDeliveriesRefusesMissingParts(t *testing.T) {
	t.Parallel()
	st, snd, enc, clk, obs := fakes.NewDeliveryStore(), &sender{}, fakes.EventEncoder{}, fakes.NewClock(t0), &observer{}
	if _, err := ports.NewDeliveries(st, snd, enc, clk, obs, options()); err != nil {
		t.Fatalf("valid parts refused: %v", err)
	}
	for name, f := range map[string]func() error{
		"store":   func() error { _, err := ports.NewDeliveries(nil, snd, enc, clk, obs, options()); return err },
		"sender":  func() error { _, err := ports.NewDeliveries(st, nil, enc, clk, obs, options()); return err },
		"encoder": func() error { _, err := ports.NewDeliveries(st, snd, nil, clk, obs, options()); return err },
		"clock":   func() error { _, err := ports.NewDeliveries(st, snd, enc, nil, obs, options()); return err },
		"obs":     func() error { _, err := ports.NewDeliveries(st, snd, enc, clk, nil, options()); return err },
	} {
		if f() == nil {
			t.Errorf("no %s: accepted", name)
		}
	}
	for name, change := range map[string]func(*ports.DeliveryOptions){
		"timeout":                        func(o *ports.DeliveryOptions) { o.Timeout = 0 },
		"workers":                        func(o *ports.DeliveryOptions) { o.Workers = 0 },
		"per endpoint 0":                 func(o *ports.DeliveryOptions) { o.WorkersPerEndpoint = 0 },
		"per endpoint more":              func(o *ports.DeliveryOptions) { o.WorkersPerEndpoint = o.Workers + 1 },
		"per partner under per endpoint": func(o *ports.DeliveryOptions) { o.WorkersPerPartner = o.WorkersPerEndpoint - 1 },
		"per partner more":               func(o *ports.DeliveryOptions) { o.WorkersPerPartner = o.Workers + 1 },
		"poll":                           func(o *ports.DeliveryOptions) { o.PollInterval = 0 },
		"disable after":                  func(o *ports.DeliveryOptions) { o.DisableAfter = 0 },
		"empty schedule":                 func(o *ports.DeliveryOptions) { o.Schedule = nil },
		"negative delay":                 func(o *ports.DeliveryOptions) { o.Schedule = domain.RetrySchedule{-time.Second} },
		"long owner":                     func(o *ports.DeliveryOptions) { o.Owner = strings.Repeat("o", ports.MaxLeaseOwner+1) },
		"a lost lease's mark":            func(o *ports.DeliveryOptions) { o.Owner = ports.LostLease + "w" },
	} {
		o := options()
		change(&o)
		if _, err := ports.NewDeliveries(st, snd, enc, clk, obs, o); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestDeliverySignedAndDelivered: an event committed with no Notify is
// attempted within the default poll interval (contract: within 5 s), as
// a signed POST (webhook-id the event id, webhook-timestamp this
// attempt's Unix seconds, one v1 signature, two within a rotation's
// overlap); a 2xx delivers it and stamps the endpoint's last success.
func TestDeliverySignedAndDelivered(t *testing.T) {
	t.Parallel()
	o := options()
	o.PollInterval = time.Second // the default
	r := newRig(t, o)
	ep := r.endpoint("we_a", "partner-a")
	old, _ := domain.NewWebhookSecret([]byte(strings.Repeat("o", 32)))
	rotated := r.store.AddEndpoint(domain.Endpoint{ID: "we_b", PartnerUser: "partner-a", URL: "https://b.example/", Status: domain.EndpointEnabled,
		Secret: testSecret, PreviousSecret: old, PreviousUntil: t0.Add(time.Hour), CreatedAt: t0})
	r.start(t)
	waitFor(t, "a first round", func() bool { return len(r.store.DueCalls()) > 0 })
	ev := r.event("partner-a", 7)
	committed := time.Now()
	waitFor(t, "both POSTs", func() bool { return len(r.send.requests("")) == 2 })
	if took := time.Since(committed); took > 5*time.Second {
		t.Errorf("first attempt %s after the commit, want within 5 s", took)
	}
	for _, req := range r.send.requests("") {
		h := req.Header
		if h["webhook-id"] != ev.ID() || h["webhook-timestamp"] != strconv.FormatInt(t0.Unix(), 10) {
			t.Errorf("%s: headers %v, want webhook-id %s and webhook-timestamp %d", req.EndpointID, h, ev.ID(), t0.Unix())
		}
		want := 1
		if req.EndpointID == "we_b" {
			want = 2
		}
		if n := strings.Count(h["webhook-signature"], "v1,"); n != want || len(strings.Fields(h["webhook-signature"])) != want {
			t.Errorf("%s: signature %q, want %d v1 signatures", req.EndpointID, h["webhook-signature"], want)
		}
		if !strings.Contains(string(req.Body), `"type":"report.accepted"`) {
			t.Errorf("%s: body %s is not the encoder's", req.EndpointID, req.Body)
		}
	}
	waitFor(t, "both delivered", func() bool {
		ds := r.store.Deliveries()
		return len(ds) == 2 && ds[0].State == ports.DeliveryDelivered && ds[1].State == ports.DeliveryDelivered
	})
	if got := r.store.Endpoint(ep.Seq).LastSuccessAt; !got.Equal(t0) {
		t.Errorf("last success %v, want %v", got, t0)
	}
	if r.store.Endpoint(rotated).LastSuccessAt.IsZero() {
		t.Error("the rotated endpoint's last success is not stamped")
	}
}

// TestDeliveryRetriesFollowTheSchedule: a receiver answering 500 is
// tried again on the schedule, each delay moved by the injected jitter
// (0.5: 10 % longer), never before; after the schedule's last attempt
// the delivery fails for good, once (GaveUp), and is not tried again.
func TestDeliveryRetriesFollowTheSchedule(t *testing.T) {
	t.Parallel()
	r := newRig(t, options())
	r.send.answer = func(context.Context, ports.WebhookRequest) ports.WebhookResult {
		return ports.WebhookResult{StatusCode: 500, Error: domain.AttemptHTTPStatus, Duration: time.Millisecond}
	}
	r.endpoint("we_a", "partner-a")
	r.event("partner-a", 1)
	r.start(t)
	attempts := func() int { return len(r.send.requests("")) }
	waitFor(t, "the first attempt", func() bool { return attempts() == 1 })
	for i, step := range []struct{ early, late time.Duration }{
		{5 * time.Second, 500*time.Millisecond + time.Nanosecond}, // 5 s + 10 %
		{5 * time.Minute, 30*time.Second + time.Nanosecond},       // 5 min + 10 %
	} {
		waitFor(t, "the attempt recorded", func() bool { return len(r.store.Attempts()) == i+1 })
		d := r.store.Deliveries()[0]
		if d.State != ports.DeliveryPending || d.Attempts != i+1 {
			t.Fatalf("after attempt %d: %+v", i+1, d)
		}
		if want := r.clock.Now().Add(step.early + step.late - time.Nanosecond); !d.NextAt.Equal(want) {
			t.Fatalf("after attempt %d: next at %v, want %v", i+1, d.NextAt, want)
		}
		r.clock.Add(step.early)
		settle()
		if attempts() != i+1 {
			t.Fatalf("attempt %d made before its delay", i+2)
		}
		r.clock.Add(step.late)
		waitFor(t, "attempt "+strconv.Itoa(i+2), func() bool { return attempts() == i+2 })
	}
	waitFor(t, "the delivery failed", func() bool { return r.store.Deliveries()[0].State == ports.DeliveryFailed })
	r.clock.Add(24 * time.Hour)
	settle()
	if attempts() != 3 || r.obs.gaveUpCount() != 1 {
		t.Errorf("after the schedule: %d attempts, gave up %d times; want 3 and 1", attempts(), r.obs.gaveUpCount())
	}
	for _, a := range r.store.Attempts() {
		if a.StatusCode != 500 || a.Error != domain.AttemptHTTPStatus || a.EventID == "" || a.EndpointID != "we_a" {
			t.Errorf("attempt logged as %+v", a)
		}
	}
	if got := r.store.Endpoint(1); got.Status != domain.EndpointEnabled {
		t.Errorf("an endpoint failing for 5 min is %s (%s)", got.Status, got.DisabledReason)
	}
}

// TestDeliveryDisabledAfterNoSuccess: an endpoint whose last success (or,
// never having one, its creation) is webhooks.disable_after ago is
// disabled by its next failed attempt, with a reason for its GET; one
// that succeeded since, or whose attempt succeeds, is not.
func TestDeliveryDisabledAfterNoSuccess(t *testing.T) {
	t.Parallel()
	r := newRig(t, options())
	status := map[string]int{"we_never": 500, "we_lately": 503, "we_ok": 200}
	r.send.answer = func(_ context.Context, req ports.WebhookRequest) ports.WebhookResult {
		res := ports.WebhookResult{StatusCode: status[req.EndpointID]}
		if res.StatusCode != 200 {
			res.Error = domain.AttemptHTTPStatus
		}
		return res
	}
	for id, lastSuccess := range map[string]time.Time{"we_never": {}, "we_lately": t0.Add(119 * time.Hour), "we_ok": {}} {
		r.store.AddEndpoint(domain.Endpoint{ID: id, PartnerUser: "p", URL: "https://x.example/", Status: domain.EndpointEnabled,
			Secret: testSecret, CreatedAt: t0, LastSuccessAt: lastSuccess})
	}
	r.clock.Add(120 * time.Hour)
	r.event("p", 1)
	r.start(t)
	waitFor(t, "three attempts recorded", func() bool { return len(r.store.Attempts()) == 3 })
	settle()
	for seq := int64(1); seq <= 3; seq++ {
		ep := r.store.Endpoint(seq)
		var d fakes.DeliveryRow
		for _, x := range r.store.Deliveries() {
			if x.EndpointSeq == seq {
				d = x
			}
		}
		switch ep.ID {
		case "we_never":
			if ep.Status != domain.EndpointDisabled || !strings.Contains(ep.DisabledReason, t0.Format(time.RFC3339)) || d.State != ports.DeliveryFailed {
				t.Errorf("never delivered for 120 h: %s %q, delivery %s", ep.Status, ep.DisabledReason, d.State)
			}
		case "we_lately":
			if ep.Status != domain.EndpointEnabled || d.State != ports.DeliveryPending {
				t.Errorf("delivered 1 h ago: %s %q, delivery %s", ep.Status, ep.DisabledReason, d.State)
			}
		case "we_ok":
			if ep.Status != domain.EndpointEnabled || d.State != ports.DeliveryDelivered {
				t.Errorf("delivered now: %s, delivery %s", ep.Status, d.State)
			}
		}
	}
	if got := r.obs.gaveUpCount(); got != 1 {
		t.Errorf("gave up %d times, want 1 (the disabled endpoint's delivery)", got)
	}
}

// TestDeliveryOfAGoneEndpointFails: a delivery whose endpoint was
// deleted, or disabled, after its dispatch is finished as failed with
// class endpoint_changed, without a POST, and never tried again; an event
// that cannot be encoded is never sent and never disables the endpoint.
func TestDeliveryOfAGoneEndpointFails(t *testing.T) {
	t.Parallel()
	r := newRig(t, options())
	gone := r.endpoint("we_gone", "p")
	r.event("p", 1)
	if n, err := r.store.Dispatch(context.Background(), t0, 10); err != nil || n != 1 {
		t.Fatalf("dispatch: %d %v", n, err)
	}
	r.store.RemoveEndpoint(gone.Seq)
	r.start(t)
	waitFor(t, "the delivery failed", func() bool { return r.store.Deliveries()[0].State == ports.DeliveryFailed })
	r.clock.Add(time.Hour)
	settle()
	if n := len(r.send.requests("")); n != 0 {
		t.Errorf("%d POSTs to a deleted endpoint", n)
	}
	if a := r.store.Attempts(); len(a) != 1 || a[0].Error != domain.AttemptEndpointChanged {
		t.Errorf("attempts %+v, want one endpoint_changed", a)
	}
}

// TestDeliveryUnencodableEventIsNotSent: an event the encoder refuses is
// never POSTed; its attempts follow the schedule with class internal and
// the endpoint is not disabled for this service's fault.
func TestDeliveryUnencodableEventIsNotSent(t *testing.T) {
	t.Parallel()
	st, clk, snd, obs := fakes.NewDeliveryStore(), fakes.NewClock(t0.Add(200*time.Hour)), &sender{}, &observer{}
	d, err := ports.NewDeliveries(st, snd, fakes.EventEncoder{Fail: errStoreDown}, clk, obs, options())
	if err != nil {
		t.Fatal(err)
	}
	st.AddEndpoint(domain.Endpoint{ID: "we_a", PartnerUser: "p", URL: "https://a.example/", Status: domain.EndpointEnabled, Secret: testSecret, CreatedAt: t0})
	st.AddEvent(domain.Event{Type: domain.EventReceived, CreatedAt: t0, PartnerUser: "p"})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- d.Run(ctx) }()
	waitFor(t, "the attempt recorded", func() bool { return len(st.Attempts()) == 1 })
	cancel()
	<-done
	if a := st.Attempts()[0]; a.Error != "internal" || len(snd.requests("")) != 0 {
		t.Errorf("attempt %+v with %d POSTs, want class internal and none", a, len(snd.requests("")))
	}
	if ep := st.Endpoint(1); ep.Status != domain.EndpointEnabled || st.Deliveries()[0].State != ports.DeliveryPending {
		t.Errorf("endpoint %s, delivery %s; want enabled and pending", ep.Status, st.Deliveries()[0].State)
	}
}

// TestDeliveryStoreFailuresKeepItRunning: a failing store is logged and
// waited out, with longer waits while it fails (not a round every poll),
// and delivery resumes when it answers again.
func TestDeliveryStoreFailuresKeepItRunning(t *testing.T) {
	t.Parallel()
	r := newRig(t, options()) // polls every 5 ms
	var down atomic.Bool
	var calls atomic.Int32
	down.Store(true)
	r.store.Fail = func(op string) error {
		if op == "dispatch" {
			calls.Add(1)
		}
		if down.Load() && op != "backlog" {
			return errStoreDown
		}
		return nil
	}
	r.endpoint("we_a", "p")
	r.event("p", 1)
	r.start(t)
	time.Sleep(400 * time.Millisecond)
	if n := calls.Load(); n < 2 || n > 10 {
		t.Errorf("%d rounds in 400 ms of a failing store polled every 5 ms, want 2 to 10 (backing off)", n)
	}
	if !strings.Contains(r.log.String(), "store down") {
		t.Errorf("the failure is not logged:\n%s", r.log.String())
	}
	down.Store(false)
	r.d.Notify()
	waitFor(t, "the delivery after the store came back", func() bool { return len(r.send.requests("")) == 1 })
}

// TestDeliveryNotifyLooksAtOnce: with an hour between polls, an event
// committed in this process is attempted at once after Notify.
func TestDeliveryNotifyLooksAtOnce(t *testing.T) {
	t.Parallel()
	o := options()
	o.PollInterval = time.Hour
	r := newRig(t, o)
	r.endpoint("we_a", "p")
	r.start(t)
	waitFor(t, "a first round", func() bool { return len(r.store.DueCalls()) > 0 })
	r.event("p", 1)
	settle()
	if n := len(r.send.requests("")); n != 0 {
		t.Fatalf("%d POSTs before Notify with an hour's poll", n)
	}
	r.d.Notify()
	waitFor(t, "the POST after Notify", func() bool { return len(r.send.requests("")) == 1 })
}

// TestDeliveryBacklogObserved: at start the observer is told the pending
// deliveries and the age of the oldest one's event.
func TestDeliveryBacklogObserved(t *testing.T) {
	t.Parallel()
	r := newRig(t, options())
	r.endpoint("we_a", "p")
	r.event("p", 1)
	if _, err := r.store.Dispatch(context.Background(), t0.Add(time.Hour), 10); err != nil {
		t.Fatal(err)
	}
	r.clock.Add(90 * time.Minute)
	r.store.Fail = func(op string) error {
		if op == "due" {
			return errStoreDown // keep it pending
		}
		return nil
	}
	r.start(t)
	waitFor(t, "a backlog reading", func() bool {
		r.obs.mu.Lock()
		defer r.obs.mu.Unlock()
		return len(r.obs.backlog) > 0
	})
	if got := r.obs.backlog[0]; got.pending != 1 || got.oldest != 90*time.Minute {
		t.Errorf("backlog %+v, want 1 pending, 90m old", got)
	}
}

package ports_test

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// testSecret is a valid signing secret (32 bytes of 'k').
var testSecret, _ = domain.NewWebhookSecret([]byte(strings.Repeat("k", 32)))

// sender is a hand-written WebhookSender: answer decides each POST (by
// default a 204); it records every request and the most POSTs it saw at
// once, in total and per endpoint.
type sender struct {
	answer func(ctx context.Context, r ports.WebhookRequest) ports.WebhookResult

	mu       sync.Mutex
	reqs     []ports.WebhookRequest
	now      map[string]int
	most     map[string]int
	mostAll  int
	inFlight int
}

func (s *sender) Send(ctx context.Context, r ports.WebhookRequest) ports.WebhookResult {
	s.mu.Lock()
	s.reqs = append(s.reqs, r)
	if s.now == nil {
		s.now, s.most = map[string]int{}, map[string]int{}
	}
	s.now[r.EndpointID]++
	s.inFlight++
	s.most[r.EndpointID] = max(s.most[r.EndpointID], s.now[r.EndpointID])
	s.mostAll = max(s.mostAll, s.inFlight)
	answer := s.answer
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.now[r.EndpointID]--
		s.inFlight--
		s.mu.Unlock()
	}()
	if answer == nil {
		return ports.WebhookResult{StatusCode: 204, Duration: time.Millisecond}
	}
	return answer(ctx, r)
}

// requests returns the POSTs made so far, to endpoint id or ("") all.
func (s *sender) requests(id string) []ports.WebhookRequest {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []ports.WebhookRequest
	for _, r := range s.reqs {
		if id == "" || r.EndpointID == id {
			out = append(out, r)
		}
	}
	return out
}

// hang is an answer that waits for ctx, as a receiver that never
// answers, and says so the way the real sender does.
func hang(ctx context.Context, _ ports.WebhookRequest) ports.WebhookResult {
	<-ctx.Done()
	return ports.WebhookResult{Error: domain.AttemptTimeout}
}

// heldUntil is an answer that waits until release is closed (or ctx is
// done), as a receiver that answers late, and then answers res.
func heldUntil(release <-chan struct{}, res ports.WebhookResult) func(context.Context, ports.WebhookRequest) ports.WebhookResult {
	return func(ctx context.Context, _ ports.WebhookRequest) ports.WebhookResult {
		select {
		case <-release:
		case <-ctx.Done():
		}
		return res
	}
}

// observer records what the worker tells the metrics.
type observer struct {
	mu        sync.Mutex
	attempted map[string]int
	gaveUp    int
	backlog   []backlogReading
}

type backlogReading struct {
	pending int64
	oldest  time.Duration
}

func (o *observer) Attempted(class string, _ time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.attempted == nil {
		o.attempted = map[string]int{}
	}
	o.attempted[class]++
}

func (o *observer) GaveUp() {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gaveUp++
}

func (o *observer) Backlog(pending int64, oldest time.Duration) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.backlog = append(o.backlog, backlogReading{pending, oldest})
}

func (o *observer) gaveUpCount() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.gaveUp
}

// rig is one worker on a fake store, with its sender, observer and
// clock (standing at t0).
type rig struct {
	d     *ports.Deliveries
	store *fakes.DeliveryStore
	clock *fakes.Clock
	send  *sender
	obs   *observer
	log   *syncBuffer
}

// options are the tests' settings: quick polls, a schedule of 0, 5 s and
// 5 min, jitter 0.5 (each delay 10 % longer), as the defaults otherwise.
func options() ports.DeliveryOptions {
	return ports.DeliveryOptions{Timeout: 10 * time.Second, Workers: 4, WorkersPerEndpoint: 2,
		PollInterval: 5 * time.Millisecond, DisableAfter: 120 * time.Hour,
		Schedule: domain.RetrySchedule{0, 5 * time.Second, 5 * time.Minute},
		Jitter:   func() float64 { return 0.5 }}
}

func newRig(t *testing.T, o ports.DeliveryOptions) *rig {
	t.Helper()
	r := &rig{store: fakes.NewDeliveryStore(), clock: fakes.NewClock(t0), send: &sender{}, obs: &observer{}, log: &syncBuffer{}}
	o.Log = slog.New(slog.NewTextHandler(r.log, nil))
	d, err := ports.NewDeliveries(r.store, r.send, fakes.EventEncoder{}, r.clock, r.obs, o)
	if err != nil {
		t.Fatal(err)
	}
	r.d = d
	return r
}

// start runs the worker until the test ends (or the returned stop),
// and fails the test when Run does not return within 5 s of its stop.
func (r *rig) start(t *testing.T) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- r.d.Run(ctx) }()
	var once sync.Once
	stop = func() {
		once.Do(func() {
			cancel()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("Run: %v", err)
				}
			case <-time.After(30 * time.Second): // a wait for a hang, not a speed
				t.Errorf("Run did not return within 30 s of its context's end")
			}
		})
	}
	t.Cleanup(stop)
	return stop
}

// endpoint adds an enabled endpoint of partner p, created at t0.
func (r *rig) endpoint(id, p string) domain.Endpoint {
	seq := r.store.AddEndpoint(domain.Endpoint{ID: id, PartnerUser: p, URL: "https://" + id + ".example/hook",
		Status: domain.EndpointEnabled, Secret: testSecret, CreatedAt: t0})
	return r.store.Endpoint(seq)
}

// event commits a report.accepted event of partner p, report id, now.
func (r *rig) event(p string, id int64) domain.Event {
	return r.store.AddEvent(domain.Event{Type: domain.EventAccepted, CreatedAt: r.clock.Now(), PartnerUser: p,
		Receipt: domain.StoredReceipt{ID: id, Status: domain.StatusAccepted}})
}

// waitFor polls cond for up to 5 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("after 5 s, still not: %s", what)
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// settle lets the worker run several rounds.
func settle() { time.Sleep(60 * time.Millisecond) }

// syncBuffer is a log sink safe for the worker's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

var errStoreDown = errors.New("store down")

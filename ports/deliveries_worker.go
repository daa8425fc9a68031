package ports

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	randv2 "math/rand/v2"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Deliveries is the delivery worker every replica runs (contract §11): it
// dispatches committed events into deliveries, leases the due ones, POSTs
// them through the sender with bounded workers in total and per
// endpoint, and records each outcome. The work is shared with the other
// replicas through the store alone: a delivery is attempted under a lease
// of Timeout + LeaseMargin, and an attempt never runs past Timeout, so
// no other replica starts the same delivery while one attempt of it runs
// here.
type Deliveries struct {
	store  DeliveryStore
	sender WebhookSender
	enc    EventEncoder
	clock  Clock
	obs    DeliveryObserver
	o      DeliveryOptions
	log    *slog.Logger
	notify chan struct{} // an event committed here: look now
	freed  chan struct{} // a worker ended while due deliveries were left
	slots  slots

	// Run's own, read and written by round alone: a look at what is due
	// reads all of it (the busy endpoints' backlog included) only when it
	// must; in between it reads what came due since dryUpTo.
	dryUpTo  time.Time // every look since lastFull found less than it asked, the last at this time; zero: none did
	lastFull time.Time // the last look at everything due

	mu     sync.Mutex
	cancel context.CancelFunc // Run's, for Close
	done   chan struct{}      // closed when Run has returned
	closed bool
}

// DeliveryOptions are the worker's settings (webhooks.*).
type DeliveryOptions struct {
	// Owner names this process in its leases (at most MaxLeaseOwner
	// bytes, not beginning with LostLease); ""
	// draws a random name. Two live processes never share one.
	Owner              string
	Timeout            time.Duration // webhooks.timeout: an attempt's bound, above 0
	Workers            int           // webhooks.workers: attempts at once, above 0
	WorkersPerEndpoint int           // webhooks.workers_per_endpoint: of those, to one endpoint; 1 to Workers
	// WorkersPerPartner (webhooks.workers_per_partner): of those, to one
	// partner's endpoints; WorkersPerEndpoint to Workers, 0: Workers.
	WorkersPerPartner int
	PollInterval      time.Duration // webhooks.poll_interval: how often the store is read, above 0
	DisableAfter      time.Duration // webhooks.disable_after: an endpoint failing this long is disabled; above 0
	Schedule          domain.RetrySchedule
	// Jitter returns a number from -1 to 1 that moves a retry's delay
	// (domain.RetrySchedule.Next); nil: uniformly random.
	Jitter func() float64
	Log    *slog.Logger // nil: nothing is logged
}

// The worker's fixed rhythms.
const (
	// LeaseMargin is added to Timeout to make a lease: room for loading
	// the delivery and recording the outcome around the POST.
	LeaseMargin = 60 * time.Second
	// BacklogInterval is how often the backlog is read for the metrics.
	BacklogInterval = 15 * time.Second
	// DispatchBatch is how many events one round dispatches.
	DispatchBatch = 100
	// maxStoreBackoff bounds the wait after a failing store.
	maxStoreBackoff = 15 * time.Second
	// finishGrace bounds the recording of an attempt that Close cut short.
	finishGrace = 5 * time.Second
)

// ErrDeliveriesClosed is Run's answer once Close was called.
var ErrDeliveriesClosed = errors.New("ports: the delivery worker is closed")

// NewDeliveries returns the worker. Every part is required; the options
// must hold a valid schedule (domain.CheckRetrySchedule) and bounds above
// 0.
func NewDeliveries(store DeliveryStore, sender WebhookSender, enc EventEncoder, clock Clock, obs DeliveryObserver, o DeliveryOptions) (*Deliveries, error) {
	switch {
	case store == nil || sender == nil || enc == nil || clock == nil || obs == nil:
		return nil, errors.New("ports: NewDeliveries needs a store, a sender, an event encoder, a clock and an observer")
	case o.Timeout <= 0 || o.PollInterval <= 0 || o.DisableAfter <= 0 || o.Workers < 1 ||
		o.WorkersPerEndpoint < 1 || o.WorkersPerEndpoint > o.Workers ||
		o.WorkersPerPartner != 0 && (o.WorkersPerPartner < o.WorkersPerEndpoint || o.WorkersPerPartner > o.Workers):
		return nil, fmt.Errorf("ports: NewDeliveries: timeout %s, poll interval %s and disable-after %s must be above 0, workers %d above 0, workers per endpoint %d from 1 to workers, workers per partner %d 0 or from workers per endpoint to workers",
			o.Timeout, o.PollInterval, o.DisableAfter, o.Workers, o.WorkersPerEndpoint, o.WorkersPerPartner)
	}
	if o.WorkersPerPartner == 0 {
		o.WorkersPerPartner = o.Workers
	}
	if o.Owner != "" {
		if err := CheckLeaseOwner(o.Owner); err != nil {
			return nil, fmt.Errorf("ports: NewDeliveries: %w", err)
		}
	}
	if err := domain.CheckRetrySchedule(o.Schedule); err != nil {
		return nil, fmt.Errorf("ports: NewDeliveries: %w", err)
	}
	if o.Owner == "" {
		b := make([]byte, 12)
		_, _ = rand.Read(b)
		o.Owner = "w-" + hex.EncodeToString(b)
	}
	if o.Jitter == nil {
		o.Jitter = func() float64 { return randv2.Float64()*2 - 1 }
	}
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Deliveries{store: store, sender: sender, enc: enc, clock: clock, obs: obs, o: o, log: log,
		notify: make(chan struct{}, 1), freed: make(chan struct{}, 1),
		slots: slots{total: o.Workers, perEndpoint: o.WorkersPerEndpoint, perPartner: o.WorkersPerPartner,
			running: map[int64]int{}, partners: map[string]int{}, deliveries: map[int64]bool{}}}, nil
}

// Owner is the name this worker's leases carry.
func (s *Deliveries) Owner() string { return s.o.Owner }

// Notify tells the worker that this process committed an event, so it
// looks at once instead of at its next poll. It never blocks.
func (s *Deliveries) Notify() { wake(s.notify) }

func wake(c chan struct{}) {
	select {
	case c <- struct{}{}:
	default:
	}
}

// Run delivers until ctx ends or Close is called, then returns once every
// goroutine it started has ended (an attempt under way is cut short and
// recorded). A failing store never ends it: the failure is logged and the
// next round waits longer, up to maxStoreBackoff. Run is called once.
func (s *Deliveries) Run(ctx context.Context) error {
	s.mu.Lock()
	if s.closed || s.done != nil {
		s.mu.Unlock()
		return ErrDeliveriesClosed
	}
	ctx, cancel := context.WithCancel(ctx)
	s.cancel, s.done = cancel, make(chan struct{})
	done := s.done
	s.mu.Unlock()
	defer close(done)
	defer cancel()

	var attempts sync.WaitGroup
	defer attempts.Wait()
	backlog := time.NewTicker(BacklogInterval)
	defer backlog.Stop()
	s.readBacklog(ctx)
	failures := 0
	for {
		wait := s.o.PollInterval
		switch more, err := s.round(ctx, &attempts); {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			failures++
			wait = min(maxStoreBackoff, s.o.PollInterval<<min(failures, 10))
			s.log.Error("webhook deliveries: the store failed; trying again", "wait", wait.String(), "failures", failures, "error", err.Error())
		case more:
			failures, wait = 0, 0
		default:
			failures = 0
		}
		timer := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			timer.Stop()
			return nil
		case <-s.notify:
		case <-s.freed:
		case <-backlog.C:
			s.readBacklog(ctx)
		case <-timer.C:
		}
		timer.Stop()
	}
}

// Close stops Run and waits until it has returned; Run is refused after.
func (s *Deliveries) Close() error {
	s.mu.Lock()
	s.closed = true
	cancel, done := s.cancel, s.done
	s.mu.Unlock()
	if cancel != nil {
		cancel()
		<-done
	}
	return nil
}

// round dispatches one batch of events, then leases and starts as many
// due deliveries as there are free workers. more says that work was left
// (a full batch dispatched, or deliveries a share refused): the next
// round runs at once.
func (s *Deliveries) round(ctx context.Context, attempts *sync.WaitGroup) (more bool, err error) {
	now := s.clock.Now()
	first, _ := s.o.Schedule.Next(1, s.o.Jitter())
	n, err := s.store.Dispatch(ctx, now.Add(first), DispatchBatch)
	if err != nil {
		return false, fmt.Errorf("dispatch: %w", err)
	}
	widened := s.slots.takeWidened() // before free: a worker freed later widens the next look
	free, busy, busyPartners := s.slots.free()
	if free == 0 {
		return n == DispatchBatch, nil
	}
	after := s.dueAfter(now, widened)
	due, err := s.store.Due(ctx, now, free, busy, busyPartners, after)
	if err != nil {
		s.dryUpTo = time.Time{}
		return false, fmt.Errorf("due deliveries: %w", err)
	}
	s.slots.setSaturated(len(due) >= free)
	switch {
	case len(due) >= free:
		s.dryUpTo = time.Time{} // more may be due than was read
	case after.IsZero():
		s.lastFull, s.dryUpTo = now, now
	default:
		s.dryUpTo = now
	}
	shareTaken := false
	for _, ref := range due {
		if ok, share := s.slots.take(ref); !ok {
			shareTaken = shareTaken || share // else under way here, or no worker free
			continue
		}
		ok, err := s.store.Lease(ctx, ref.ID, s.o.Owner, now, now.Add(s.o.Timeout+LeaseMargin))
		if err != nil || !ok {
			s.slots.give(ref)
			if err != nil {
				return false, fmt.Errorf("lease delivery %d: %w", ref.ID, err)
			}
			continue // another replica took it first
		}
		attempts.Add(1)
		go func() {
			defer attempts.Done()
			defer s.release(ref)
			s.attempt(ctx, ref)
		}()
	}
	return n == DispatchBatch || shareTaken, nil
}

// dueAfter is where round's look at what is due starts: at everything
// (zero) for the first look, after a look that found as much as it asked,
// when a worker of an endpoint at its share or of a full pool ended
// (widened: what was left out may be taken now), and once a PollInterval,
// which also finds what another replica made due and the leases that ran
// out; otherwise after dryUpTo, all that came due since the last look.
// With endpoints that hang, their backlog, due first, is then read once a
// PollInterval and once a timeout, not at every event committed.
func (s *Deliveries) dueAfter(now time.Time, widened bool) time.Time {
	if widened || s.dryUpTo.IsZero() || now.Sub(s.lastFull) >= s.o.PollInterval {
		return time.Time{}
	}
	return s.dryUpTo
}

// release gives a worker back, and wakes Run when the last Due filled
// every free worker (more may be due).
func (s *Deliveries) release(ref DeliveryRef) {
	if s.slots.give(ref) {
		wake(s.freed)
	}
}

package fakes

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.DeliveryStore = (*DeliveryStore)(nil)

// DeliveryStore is an in-memory ports.DeliveryStore: events, endpoints,
// deliveries under leases and the attempts log, with the semantics the
// port's comments give. Fail, when set, makes an operation fail.
type DeliveryStore struct {
	mu         sync.Mutex
	events     []eventRow
	endpoints  map[int64]*domain.Endpoint
	deliveries []*DeliveryRow
	attempts   []domain.Attempt
	nextEP     int64
	// Fail is asked before each operation ("dispatch", "due", "lease",
	// "load", "finish", "backlog"); an error it returns is that
	// operation's. Set it before the store is used.
	Fail     func(op string) error
	dueCalls []DueCall
}

// DueCall is what one Due was asked: the busy endpoints and partners,
// and the time after which it looked (zero: all that is due).
type DueCall struct {
	Busy         []int64
	BusyPartners []string
	After        time.Time
}

// DueCalls returns what each Due so far was asked.
func (m *DeliveryStore) DueCalls() []DueCall {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.dueCalls)
}

type eventRow struct {
	e          domain.Event
	dispatched bool
	gone       bool
}

// DeliveryRow is one delivery as the fake holds it.
type DeliveryRow struct {
	ID          int64
	EventSeq    int64
	EndpointSeq int64
	State       ports.DeliveryState
	Attempts    int
	NextAt      time.Time
	LeaseOwner  string
	LeaseUntil  time.Time
}

// NewDeliveryStore returns an empty store.
func NewDeliveryStore() *DeliveryStore {
	return &DeliveryStore{endpoints: map[int64]*domain.Endpoint{}}
}

// AddEndpoint stores e (its Seq set) and returns its Seq.
func (m *DeliveryStore) AddEndpoint(e domain.Endpoint) int64 {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.nextEP++
	e.Seq = m.nextEP
	m.endpoints[e.Seq] = &e
	return e.Seq
}

// Endpoint returns endpoint seq as it stands.
func (m *DeliveryStore) Endpoint(seq int64) domain.Endpoint {
	m.mu.Lock()
	defer m.mu.Unlock()
	return *m.endpoints[seq]
}

// RemoveEndpoint deletes endpoint seq (its deliveries stay, as a store
// between a delete and its clean-up).
func (m *DeliveryStore) RemoveEndpoint(seq int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.endpoints, seq)
}

// AddEvent commits e, not yet dispatched, and returns it with its Seq.
func (m *DeliveryStore) AddEvent(e domain.Event) domain.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	e.Seq = int64(len(m.events) + 1)
	m.events = append(m.events, eventRow{e: e})
	return e
}

// Deliveries returns a copy of every delivery, by id.
func (m *DeliveryStore) Deliveries() []DeliveryRow {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]DeliveryRow, len(m.deliveries))
	for i, d := range m.deliveries {
		out[i] = *d
	}
	return out
}

// Attempts returns the attempts log, oldest first.
func (m *DeliveryStore) Attempts() []domain.Attempt {
	m.mu.Lock()
	defer m.mu.Unlock()
	return slices.Clone(m.attempts)
}

// fail is an operation's error: its context's end, as a database's
// driver would say it, or Fail's.
func (m *DeliveryStore) fail(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("%s: %w", op, err)
	}
	if m.Fail == nil {
		return nil
	}
	return m.Fail(op)
}

// Dispatch makes the deliveries of up to limit undispatched events.
func (m *DeliveryStore) Dispatch(ctx context.Context, now time.Time, limit int) (int, error) {
	if err := m.fail(ctx, "dispatch"); err != nil {
		return 0, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for i := range m.events {
		ev := &m.events[i]
		if ev.dispatched || n == limit {
			continue
		}
		ev.dispatched, n = true, n+1
		for _, seq := range slices.Sorted(mapKeys(m.endpoints)) {
			ep := m.endpoints[seq]
			if ep.PartnerUser != ev.e.PartnerUser || ep.Status != domain.EndpointEnabled || !ep.Takes(ev.e.Type) {
				continue
			}
			m.deliveries = append(m.deliveries, &DeliveryRow{ID: int64(len(m.deliveries) + 1), EventSeq: ev.e.Seq,
				EndpointSeq: seq, State: ports.DeliveryPending, NextAt: now})
		}
	}
	return n, nil
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// Due lists pending deliveries due at now (and at or after after, when set), no
// live lease, not of busy nor of busyPartners' endpoints (a gone endpoint has no partner).
func (m *DeliveryStore) Due(ctx context.Context, now time.Time, limit int, busy []int64, busyPartners []string, after time.Time) ([]ports.DeliveryRef, error) {
	if err := m.fail(ctx, "due"); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.dueCalls = append(m.dueCalls, DueCall{Busy: slices.Clone(busy), BusyPartners: slices.Clone(busyPartners), After: after})
	partner := func(seq int64) string {
		if e := m.endpoints[seq]; e != nil {
			return e.PartnerUser
		}
		return ""
	}
	var due []*DeliveryRow
	for _, d := range m.deliveries {
		if d.State == ports.DeliveryPending && !d.NextAt.After(now) && !d.LeaseUntil.After(now) && !slices.Contains(busy, d.EndpointSeq) &&
			(after.IsZero() || !d.NextAt.Before(after)) && !slices.Contains(busyPartners, partner(d.EndpointSeq)) {
			due = append(due, d)
		}
	}
	slices.SortStableFunc(due, func(a, b *DeliveryRow) int { return cmp.Or(a.NextAt.Compare(b.NextAt), cmp.Compare(a.ID, b.ID)) })
	var out []ports.DeliveryRef
	for _, d := range due[:min(limit, len(due))] {
		out = append(out, ports.DeliveryRef{ID: d.ID, EndpointSeq: d.EndpointSeq, Partner: partner(d.EndpointSeq)})
	}
	return out, nil
}

// Lease takes delivery id for owner until until.
func (m *DeliveryStore) Lease(ctx context.Context, id int64, owner string, now, until time.Time) (bool, error) {
	if err := m.fail(ctx, "lease"); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.delivery(id)
	if d == nil || d.State != ports.DeliveryPending || d.NextAt.After(now) || d.LeaseUntil.After(now) {
		return false, nil
	}
	d.LeaseOwner, d.LeaseUntil = owner, until
	return true, nil
}

func (m *DeliveryStore) delivery(id int64) *DeliveryRow {
	if id < 1 || id > int64(len(m.deliveries)) {
		return nil
	}
	return m.deliveries[id-1]
}

// Load returns delivery id with its event and endpoint.
func (m *DeliveryStore) Load(ctx context.Context, id int64) (ports.Delivery, error) {
	if err := m.fail(ctx, "load"); err != nil {
		return ports.Delivery{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	d := m.delivery(id)
	if d == nil {
		return ports.Delivery{}, fmt.Errorf("delivery %d: %w", id, domain.ErrNotFound)
	}
	ev, ep := m.events[d.EventSeq-1], m.endpoints[d.EndpointSeq]
	if ev.gone || ep == nil {
		return ports.Delivery{}, fmt.Errorf("delivery %d's event or endpoint: %w", id, domain.ErrNotFound)
	}
	return ports.Delivery{ID: d.ID, Attempts: d.Attempts, Event: ev.e, Endpoint: *ep}, nil
}

// Finish records o's attempt, and its outcome when owner holds the lease.
func (m *DeliveryStore) Finish(ctx context.Context, owner string, o ports.DeliveryOutcome) (bool, error) {
	if err := m.fail(ctx, "finish"); err != nil {
		return false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	m.attempts = append(m.attempts, o.Attempt)
	d := m.delivery(o.ID)
	if d == nil || d.LeaseOwner != owner {
		return false, nil
	}
	d.State, d.NextAt, d.LeaseOwner, d.LeaseUntil = o.State, o.NextAt, "", time.Time{}
	d.Attempts++
	if ep := m.endpoints[d.EndpointSeq]; ep != nil {
		if o.State == ports.DeliveryDelivered {
			ep.LastSuccessAt = o.Attempt.At
		}
		if o.DisableReason != "" {
			ep.Status, ep.DisabledReason = domain.EndpointDisabled, o.DisableReason
		}
	}
	return true, nil
}

// RedeliverEvent makes user's event at p due again for its endpoints.
func (m *DeliveryStore) RedeliverEvent(_ context.Context, user string, p ports.EventPosition, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, ev := range m.events {
		if ev.e.PartnerUser == user && ev.e.Seq == p.Seq && ev.e.CreatedAt.Equal(p.CreatedAt) {
			return m.redeliver(func(e domain.Event, _ *domain.Endpoint) bool { return e.Seq == p.Seq }, now), nil
		}
	}
	return 0, fmt.Errorf("event %d: %w", p.Seq, domain.ErrNotFound)
}

// RedeliverSince makes every event since since due again.
func (m *DeliveryStore) RedeliverSince(_ context.Context, since time.Time, endpoint string, now time.Time) (int, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.redeliver(func(e domain.Event, ep *domain.Endpoint) bool {
		return !e.CreatedAt.Before(since) && (endpoint == "" || ep.ID == endpoint)
	}, now), nil
}

func (m *DeliveryStore) redeliver(match func(domain.Event, *domain.Endpoint) bool, now time.Time) int {
	n := 0
	for _, d := range m.deliveries {
		ep := m.endpoints[d.EndpointSeq]
		if ep != nil && ep.Status == domain.EndpointEnabled && match(m.events[d.EventSeq-1].e, ep) {
			d.State, d.NextAt, n = ports.DeliveryPending, now, n+1
		}
	}
	return n
}

// Backlog counts the pending deliveries and finds the oldest one's event.
func (m *DeliveryStore) Backlog(ctx context.Context) (int64, time.Time, error) {
	if err := m.fail(ctx, "backlog"); err != nil {
		return 0, time.Time{}, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	var oldest time.Time
	for _, d := range m.deliveries {
		if d.State != ports.DeliveryPending {
			continue
		}
		n++
		if at := m.events[d.EventSeq-1].e.CreatedAt; oldest.IsZero() || at.Before(oldest) {
			oldest = at
		}
	}
	return n, oldest, nil
}

// PurgeEvents marks events created before before as gone.
func (m *DeliveryStore) PurgeEvents(_ context.Context, before time.Time, limit int, apply bool) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for i := range m.events {
		if ev := &m.events[i]; !ev.gone && ev.e.CreatedAt.Before(before) && (!apply || n < int64(limit)) {
			ev.gone, n = apply, n+1
		}
	}
	return n, nil
}

// EventEncoder is a ports.EventEncoder writing {"type", "timestamp",
// "data": {"id", "status"}}: the shape of a webhook body, with a receipt
// cut to what tests read.
type EventEncoder struct {
	// Fail, when set, is returned instead of a body.
	Fail error
}

var _ ports.EventEncoder = EventEncoder{}

// WebhookBody writes e.
func (c EventEncoder) WebhookBody(e domain.Event) ([]byte, error) {
	if c.Fail != nil {
		return nil, c.Fail
	}
	return json.Marshal(map[string]any{"type": e.Type, "timestamp": e.CreatedAt.UTC().Format(time.RFC3339Nano),
		"data": map[string]any{"id": e.Receipt.ID, "status": e.Type.Status()}})
}

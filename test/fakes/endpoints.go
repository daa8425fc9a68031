package fakes

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Endpoints is an in-memory ports.EndpointStore.
type Endpoints struct {
	mu       sync.Mutex
	list     []domain.Endpoint
	attempts map[string][]domain.Attempt // by endpoint id, oldest first
	// Fail makes every call fail.
	Fail error
}

var _ ports.EndpointStore = (*Endpoints)(nil)

// NewEndpoints returns an empty store.
func NewEndpoints() *Endpoints { return &Endpoints{attempts: map[string][]domain.Attempt{}} }

// find returns the index of endpoint id of user ("" any user), or -1;
// m.mu is held.
func (m *Endpoints) find(user, id string) int {
	for i, e := range m.list {
		if e.ID == id && (user == "" || e.PartnerUser == user) {
			return i
		}
	}
	return -1
}

func notFound(id string) error { return fmt.Errorf("endpoint %s: %w", id, domain.ErrNotFound) }

// CreateEndpoint adds e unless its partner has max already.
func (m *Endpoints) CreateEndpoint(_ context.Context, e domain.Endpoint, max int) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return m.Fail
	}
	n := 0
	for _, x := range m.list {
		if x.PartnerUser == e.PartnerUser {
			n++
		}
	}
	if n >= max {
		return fmt.Errorf("endpoints of %s: %d: %w", e.PartnerUser, n, domain.ErrConflict)
	}
	e.Seq = int64(len(m.list) + 1)
	m.list = append(m.list, e)
	return nil
}

// ListEndpoints returns user's endpoints, oldest first.
func (m *Endpoints) ListEndpoints(_ context.Context, user string) ([]domain.Endpoint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return nil, m.Fail
	}
	var out []domain.Endpoint
	for _, e := range m.list {
		if e.PartnerUser == user {
			out = append(out, e)
		}
	}
	return out, nil
}

// GetEndpoint returns user's endpoint id.
func (m *Endpoints) GetEndpoint(_ context.Context, user, id string) (domain.Endpoint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return domain.Endpoint{}, m.Fail
	}
	if i := m.find(user, id); i >= 0 {
		return m.list[i], nil
	}
	return domain.Endpoint{}, notFound(id)
}

// DeleteEndpoint removes user's endpoint id.
func (m *Endpoints) DeleteEndpoint(_ context.Context, user, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.find(user, id)
	if i < 0 {
		return notFound(id)
	}
	m.list = append(m.list[:i], m.list[i+1:]...)
	return nil
}

// RotateSecret gives user's endpoint id a new secret, keeping the old one
// until previousUntil.
func (m *Endpoints) RotateSecret(_ context.Context, user, id string, secret domain.WebhookSecret, previousUntil time.Time) (domain.Endpoint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.find(user, id)
	if i < 0 {
		return domain.Endpoint{}, notFound(id)
	}
	e := &m.list[i]
	e.PreviousSecret, e.PreviousUntil, e.Secret = e.Secret, previousUntil, secret
	return *e, nil
}

// Attempts returns the newest attempts of user's endpoint id, newest
// first.
func (m *Endpoints) Attempts(_ context.Context, user, id string, limit int) ([]domain.Attempt, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.find(user, id) < 0 {
		return nil, notFound(id)
	}
	all := m.attempts[id]
	var out []domain.Attempt
	for i := len(all) - 1; i >= 0 && len(out) < limit; i-- {
		out = append(out, all[i])
	}
	return out, nil
}

// AddAttempt logs an attempt of its endpoint (a test's delivery).
func (m *Endpoints) AddAttempt(a domain.Attempt) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.attempts[a.EndpointID] = append(m.attempts[a.EndpointID], a)
}

// AllEndpoints returns every endpoint, oldest first.
func (m *Endpoints) AllEndpoints(context.Context) ([]domain.Endpoint, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return nil, m.Fail
	}
	return append([]domain.Endpoint(nil), m.list...), nil
}

// SetEndpointStatus enables or disables endpoint id.
func (m *Endpoints) SetEndpointStatus(_ context.Context, id string, st domain.EndpointStatus, reason string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	i := m.find("", id)
	if i < 0 {
		return notFound(id)
	}
	m.list[i].Status, m.list[i].DisabledReason = st, reason
	return nil
}

// Redeliveries is an in-memory ports.RedeliveryStore over a ReportStore's
// events and an Endpoints: it counts the deliveries a redelivery makes due
// and remembers each.
type Redeliveries struct {
	Reports   *ReportStore
	Endpoints *Endpoints
	mu        sync.Mutex
	due       []string // "event id -> endpoint id", in the order made due
}

var _ ports.RedeliveryStore = (*Redeliveries)(nil)

// RedeliverEvent makes user's event at p due for each of user's enabled
// endpoints that takes its type.
func (m *Redeliveries) RedeliverEvent(ctx context.Context, user string, p ports.EventPosition, _ time.Time) (int, error) {
	ev, err := m.Reports.GetEvent(ctx, user, p)
	if err != nil {
		return 0, err
	}
	return m.redeliver([]domain.Event{ev}, ""), nil
}

// RedeliverSince makes every event created at or after since due, for
// endpoint only when it is not "".
func (m *Redeliveries) RedeliverSince(_ context.Context, since time.Time, endpoint string, _ time.Time) (int, error) {
	var evs []domain.Event
	for _, ev := range m.Reports.Events() {
		if !ev.CreatedAt.Before(since) {
			evs = append(evs, ev)
		}
	}
	return m.redeliver(evs, endpoint), nil
}

func (m *Redeliveries) redeliver(evs []domain.Event, endpoint string) int {
	all, _ := m.Endpoints.AllEndpoints(context.Background())
	m.mu.Lock()
	defer m.mu.Unlock()
	n := 0
	for _, ev := range evs {
		for _, e := range all {
			if e.PartnerUser == ev.PartnerUser && e.Status == domain.EndpointEnabled && e.Takes(ev.Type) && (endpoint == "" || e.ID == endpoint) {
				m.due = append(m.due, ev.ID()+" -> "+e.ID)
				n++
			}
		}
	}
	return n
}

// Due returns the deliveries made due, in order.
func (m *Redeliveries) Due() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]string(nil), m.due...)
}

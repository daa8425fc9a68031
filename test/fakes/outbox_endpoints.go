package fakes

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// outboxAttempt is one row of the attempts log.
type outboxAttempt struct {
	seq, endpoint, event int64
	a                    domain.Attempt
}

// endpoint returns endpoint id, user's unless user is ""; o.mu is held.
func (o *Outbox) endpoint(user, id string) (*domain.Endpoint, error) {
	for _, e := range o.endpoints {
		if e.ID == id && (user == "" || e.PartnerUser == user) {
			return e, nil
		}
	}
	return nil, fmt.Errorf("endpoint %s: %w", domain.Clip(id), domain.ErrNotFound)
}

// CreateEndpoint adds e unless its partner has max endpoints.
func (o *Outbox) CreateEndpoint(_ context.Context, e domain.Endpoint, max int) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.counts[e.PartnerUser] >= max {
		return fmt.Errorf("create endpoint: the partner has %d endpoints: %w", max, domain.ErrConflict)
	}
	o.counts[e.PartnerUser]++
	e.Seq = o.nextSeq()
	if e.Status == "" {
		e.Status = domain.EndpointEnabled
	}
	e.EventTypes = slices.Clone(e.EventTypes)
	o.endpoints = append(o.endpoints, &e)
	return nil
}

// ListEndpoints returns user's endpoints, oldest first.
func (o *Outbox) ListEndpoints(_ context.Context, user string) ([]domain.Endpoint, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []domain.Endpoint
	for _, e := range o.endpoints {
		if e.PartnerUser == user {
			out = append(out, *e)
		}
	}
	return out, nil
}

// AllEndpoints returns every endpoint, oldest first.
func (o *Outbox) AllEndpoints(context.Context) ([]domain.Endpoint, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := make([]domain.Endpoint, len(o.endpoints))
	for i, e := range o.endpoints {
		out[i] = *e
	}
	return out, nil
}

// GetEndpoint returns user's endpoint id.
func (o *Outbox) GetEndpoint(_ context.Context, user, id string) (domain.Endpoint, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, err := o.endpoint(user, id)
	if err != nil {
		return domain.Endpoint{}, err
	}
	return *e, nil
}

// DeleteEndpoint removes user's endpoint id, its pending deliveries and
// its attempts.
func (o *Outbox) DeleteEndpoint(_ context.Context, user, id string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, err := o.endpoint(user, id)
	if err != nil {
		return err
	}
	o.endpoints = slices.DeleteFunc(o.endpoints, func(x *domain.Endpoint) bool { return x == e })
	o.counts[user]--
	o.deliveries = slices.DeleteFunc(o.deliveries, func(d *outboxDelivery) bool {
		return d.endpoint == e.Seq && d.state == ports.DeliveryPending
	})
	o.attempts = slices.DeleteFunc(o.attempts, func(a outboxAttempt) bool { return a.endpoint == e.Seq })
	return nil
}

// RotateSecret makes secret the endpoint's, the current one its previous
// until previousUntil; RotationRunning while the previous one signs.
func (o *Outbox) RotateSecret(_ context.Context, user, id string, secret domain.WebhookSecret, now, previousUntil time.Time) (domain.Endpoint, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, err := o.endpoint(user, id)
	if err != nil {
		return domain.Endpoint{}, err
	}
	if e.PreviousSecret != "" && e.PreviousUntil.After(now) {
		return domain.Endpoint{}, domain.RotationRunning(e.PreviousUntil)
	}
	e.PreviousSecret, e.PreviousUntil, e.Secret = e.Secret, previousUntil.UTC(), secret
	return *e, nil
}

// SetEndpointStatus enables or disables endpoint id, whoever's it is.
func (o *Outbox) SetEndpointStatus(_ context.Context, id string, status domain.EndpointStatus, reason string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, err := o.endpoint("", id)
	if err != nil {
		return err
	}
	if status == domain.EndpointEnabled {
		reason = ""
	}
	e.Status, e.DisabledReason = status, reason
	return nil
}

// Attempts returns the newest attempts of user's endpoint id, newest
// first.
func (o *Outbox) Attempts(_ context.Context, user, id string, limit int) ([]domain.Attempt, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, err := o.endpoint(user, id)
	if err != nil {
		return nil, err
	}
	var out []domain.Attempt
	for i := len(o.attempts) - 1; i >= 0 && len(out) < limit; i-- {
		if a := o.attempts[i]; a.endpoint == e.Seq {
			out = append(out, a.a)
		}
	}
	slices.SortStableFunc(out, func(a, b domain.Attempt) int { return b.At.Compare(a.At) })
	return out, nil
}

// recordAttempt adds a to endpoint's log and keeps its newest
// domain.MaxAttemptsListed; o.mu is held.
func (o *Outbox) recordAttempt(endpoint int64, a domain.Attempt) {
	ep := slices.IndexFunc(o.endpoints, func(e *domain.Endpoint) bool { return e.Seq == endpoint })
	if ep < 0 {
		return
	}
	_, event, _ := domain.ParseEventID(a.EventID)
	a.EndpointID, a.At, a.Duration = o.endpoints[ep].ID, a.At.UTC().Truncate(time.Millisecond), a.Duration.Truncate(time.Millisecond)
	o.attempts = append(o.attempts, outboxAttempt{seq: o.nextSeq(), endpoint: endpoint, event: event, a: a})
	n := 0
	for i := len(o.attempts) - 1; i >= 0; i-- {
		if o.attempts[i].endpoint != endpoint {
			continue
		}
		if n++; n > domain.MaxAttemptsListed {
			o.attempts = slices.Delete(o.attempts, i, i+1)
		}
	}
}

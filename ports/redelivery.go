package ports

import (
	"context"
	"errors"
	"time"

	"github.com/lender/disbursementd/domain"
)

// RedeliveryStore makes deliveries due again: the part of DeliveryStore
// that partners and operators drive (contract §11), declared here so the
// use case needs no more of it.
type RedeliveryStore interface {
	RedeliverEvent(ctx context.Context, user string, p EventPosition, now time.Time) (int, error)
	RedeliverSince(ctx context.Context, since time.Time, endpoint string, now time.Time) (int, error)
}

// Redelivery is the use case "send events again": a partner's one event
// to its enabled endpoints (POST /v1/events/{id}/redeliver), or an
// operator's every event since a time (webhooks redeliver). The attempts
// already made stay in the log; the webhook-id stays the event's id.
type Redelivery struct {
	store  RedeliveryStore
	clock  Clock
	notify func()
}

// NewRedelivery returns the use case on store; notify, when not nil, is
// called after deliveries were made due (the delivery workers of this
// process look at once).
func NewRedelivery(store RedeliveryStore, clock Clock, notify func()) (*Redelivery, error) {
	if store == nil || clock == nil {
		return nil, errors.New("ports: NewRedelivery needs a store and a clock")
	}
	return &Redelivery{store: store, clock: clock, notify: notify}, nil
}

// Event makes user's event id (domain.EventID) due again for each of
// user's enabled endpoints that takes its type, and returns how many
// deliveries that is (0 when no endpoint takes it). Errors:
// domain.ErrNotFound (not_found) for an id that is not one or not the
// partner's; domain.ErrUnavailable when the store fails.
func (s *Redelivery) Event(ctx context.Context, user, id string) (int, error) {
	at, seq, ok := domain.ParseEventID(id)
	if !ok {
		return 0, domain.NewError(domain.ErrNotFound, "not_found", MsgEventNotFound)
	}
	n, err := s.store.RedeliverEvent(ctx, user, EventPosition{CreatedAt: at, Seq: seq}, s.clock.Now())
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return 0, domain.NewError(domain.ErrNotFound, "not_found", MsgEventNotFound).WithCause(err)
	case err != nil:
		return 0, domain.NewError(domain.ErrUnavailable, "store_failed", MsgRedeliveryFailed).WithCause(err)
	}
	s.woke(n)
	return n, nil
}

// Since makes every event created at or after since due again, for the
// endpoint whose public id is endpoint only when it is not "", and
// returns how many deliveries that is. Errors: domain.ErrInvalidInput
// for a zero time or an endpoint id that is not one;
// domain.ErrUnavailable when the store fails.
func (s *Redelivery) Since(ctx context.Context, since time.Time, endpoint string) (int, error) {
	if since.IsZero() {
		return 0, domain.NewError(domain.ErrInvalidInput, "invalid_since", "a time to redeliver from is required")
	}
	if endpoint != "" && !domain.ValidEndpointID(endpoint) {
		return 0, domain.NewError(domain.ErrInvalidInput, "invalid_endpoint", "endpoint "+domain.Clip(endpoint)+" is not an endpoint id (we_ and 24 letters and digits)")
	}
	n, err := s.store.RedeliverSince(ctx, since.UTC(), endpoint, s.clock.Now())
	if err != nil {
		return 0, domain.NewError(domain.ErrUnavailable, "store_failed", MsgRedeliveryFailed).WithCause(err)
	}
	s.woke(n)
	return n, nil
}

func (s *Redelivery) woke(n int) {
	if n > 0 && s.notify != nil {
		s.notify()
	}
}

// MsgRedeliveryFailed is the message of a redelivery the store could not
// record: nothing changed, and it may be asked again.
const MsgRedeliveryFailed = "No se pudo programar el reenvío; reintente en un momento"

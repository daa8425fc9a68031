package fakes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// outboxDelivery is one event to one endpoint.
type outboxDelivery struct {
	id, event, endpoint int64
	state               ports.DeliveryState
	attempts            int
	nextAt              time.Time
	leaseOwner          string
	leaseUntil          time.Time
}

// delivery returns the delivery of event to endpoint, or nil; o.mu is
// held.
func (o *Outbox) delivery(event, endpoint int64) *outboxDelivery {
	for _, d := range o.deliveries {
		if d.event == event && d.endpoint == endpoint {
			return d
		}
	}
	return nil
}

// makeDue makes the delivery of event to endpoint pending and due at now:
// a new one, or with again an existing one (its attempts counted from 0,
// its lease's holder losing it to its ports.LostLease mark, the lease's
// time kept); o.mu is held.
func (o *Outbox) makeDue(event, endpoint int64, now time.Time, again bool) {
	d := o.delivery(event, endpoint)
	switch {
	case d == nil:
		o.deliveries = append(o.deliveries, &outboxDelivery{id: o.nextSeq(), event: event, endpoint: endpoint,
			state: ports.DeliveryPending, nextAt: now})
	case again:
		d.state, d.attempts, d.nextAt = ports.DeliveryPending, 0, now
		if d.leaseOwner != "" && !strings.HasPrefix(d.leaseOwner, ports.LostLease) {
			d.leaseOwner = ports.LostLease + d.leaseOwner
		}
	}
}

// enabledTaking returns the enabled endpoints of user that take t; o.mu
// is held.
func (o *Outbox) enabledTaking(user string, t domain.EventType) []*domain.Endpoint {
	var out []*domain.Endpoint
	for _, e := range o.endpoints {
		if e.PartnerUser == user && e.Status == domain.EndpointEnabled && e.Takes(t) {
			out = append(out, e)
		}
	}
	return out
}

// Dispatch makes the deliveries of up to limit undispatched events.
func (o *Outbox) Dispatch(_ context.Context, now time.Time, limit int) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, e := range o.events {
		if e.dispatched || n == limit {
			continue
		}
		for _, ep := range o.enabledTaking(e.user, e.typ) {
			o.makeDue(e.seq, ep.Seq, now, false)
		}
		e.dispatched = true
		n++
	}
	return n, nil
}

// Due returns pending deliveries due at now with no live lease, longest
// due first, but for those of the endpoints in busy (and due at or after
// after, when set).
func (o *Outbox) Due(_ context.Context, now time.Time, limit int, busy []int64, busyPartners []string, after time.Time) ([]ports.DeliveryRef, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	partner := func(seq int64) string {
		for _, e := range o.endpoints {
			if e.Seq == seq {
				return e.PartnerUser
			}
		}
		return ""
	}
	var due []*outboxDelivery
	for _, d := range o.deliveries {
		if d.state == ports.DeliveryPending && !d.nextAt.After(now) && d.leaseUntil.Before(now) && !slices.Contains(busy, d.endpoint) &&
			(after.IsZero() || !d.nextAt.Before(after)) && !slices.Contains(busyPartners, partner(d.endpoint)) {
			due = append(due, d)
		}
	}
	slices.SortStableFunc(due, func(a, b *outboxDelivery) int { return a.nextAt.Compare(b.nextAt) })
	out := make([]ports.DeliveryRef, 0, min(len(due), limit))
	for _, d := range due[:min(len(due), limit)] {
		out = append(out, ports.DeliveryRef{ID: d.id, EndpointSeq: d.endpoint, Partner: partner(d.endpoint)})
	}
	return out, nil
}

// Lease takes delivery id for owner as the SQL store's conditional UPDATE
// does.
func (o *Outbox) Lease(_ context.Context, id int64, owner string, now, until time.Time) (bool, error) {
	if err := ports.CheckLeaseOwner(owner); err != nil {
		return false, fmt.Errorf("lease delivery %d: %w", id, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, d := range o.deliveries {
		if d.id == id && d.state == ports.DeliveryPending && !d.nextAt.After(now) &&
			(d.leaseUntil.Before(now) || d.leaseOwner == owner) {
			d.leaseOwner, d.leaseUntil = owner, until
			return true, nil
		}
	}
	return false, nil
}

// Load returns delivery id with its event and endpoint.
func (o *Outbox) Load(_ context.Context, id int64) (ports.Delivery, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	i := slices.IndexFunc(o.deliveries, func(d *outboxDelivery) bool { return d.id == id })
	if i >= 0 {
		d := o.deliveries[i]
		ev := slices.IndexFunc(o.events, func(e *outboxEvent) bool { return e.seq == d.event })
		ep := slices.IndexFunc(o.endpoints, func(e *domain.Endpoint) bool { return e.Seq == d.endpoint })
		if ev >= 0 && ep >= 0 {
			if e, ok := o.event(o.events[ev]); ok {
				return ports.Delivery{ID: d.id, Attempts: d.attempts, Event: e, Endpoint: *o.endpoints[ep]}, nil
			}
		}
	}
	return ports.Delivery{}, fmt.Errorf("delivery %d, its event, report or endpoint: %w", id, domain.ErrNotFound)
}

// Finish records the attempt and, under owner's lease, the outcome.
func (o *Outbox) Finish(_ context.Context, owner string, out ports.DeliveryOutcome) (bool, error) {
	if _, _, ok := domain.ParseEventID(out.Attempt.EventID); !ok {
		return false, fmt.Errorf("finish delivery %d: %q is not an event id", out.ID, out.Attempt.EventID)
	}
	if !slices.Contains([]ports.DeliveryState{ports.DeliveryPending, ports.DeliveryDelivered, ports.DeliveryFailed}, out.State) {
		return false, fmt.Errorf("finish delivery %d: %q is not a delivery's state", out.ID, out.State)
	}
	if err := ports.CheckLeaseOwner(owner); err != nil {
		return false, fmt.Errorf("finish delivery %d: %w", out.ID, err)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	o.recordAttempt(out.EndpointSeq, out.Attempt)
	i := slices.IndexFunc(o.deliveries, func(d *outboxDelivery) bool { return d.id == out.ID && d.leaseOwner == owner })
	if i < 0 {
		// A redelivery took the lease (owner's mark) and kept its time
		// while this attempt might be under way; it is over: free the
		// delivery, when the mark is still owner's.
		if j := slices.IndexFunc(o.deliveries, func(d *outboxDelivery) bool {
			return d.id == out.ID && d.leaseOwner == ports.LostLease+owner
		}); j >= 0 {
			o.deliveries[j].leaseOwner, o.deliveries[j].leaseUntil = "", time.Time{}
		}
		return false, nil
	}
	d := o.deliveries[i]
	d.state, d.leaseOwner, d.leaseUntil = out.State, "", time.Time{}
	d.attempts++
	if !out.NextAt.IsZero() {
		d.nextAt = out.NextAt
	}
	ep := slices.IndexFunc(o.endpoints, func(e *domain.Endpoint) bool { return e.Seq == out.EndpointSeq })
	if ep >= 0 {
		e := o.endpoints[ep]
		if at := out.Attempt.At.UTC().Truncate(time.Millisecond); out.State == ports.DeliveryDelivered && !e.LastSuccessAt.After(at.Add(-time.Minute)) {
			e.LastSuccessAt = at
		}
		if out.DisableReason != "" {
			e.Status, e.DisabledReason = domain.EndpointDisabled, out.DisableReason
		}
	}
	return true, nil
}

// RedeliverEvent makes user's event at p due again for user's enabled
// endpoints that take it.
func (o *Outbox) RedeliverEvent(_ context.Context, user string, p ports.EventPosition, now time.Time) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, err := o.eventAt(user, p)
	if err != nil {
		return 0, fmt.Errorf("redeliver event: %w", err)
	}
	eps := o.enabledTaking(user, e.Type)
	for _, ep := range eps {
		o.makeDue(e.Seq, ep.Seq, now, true)
	}
	return len(eps), nil
}

// RedeliverSince makes every event created at or after since due again to
// its partner's enabled endpoints that take it (endpoint's only, when
// set).
func (o *Outbox) RedeliverSince(_ context.Context, since time.Time, endpoint string, now time.Time) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := 0
	for _, row := range o.events {
		e, ok := o.event(row)
		if !ok || e.CreatedAt.Before(since) {
			continue
		}
		for _, ep := range o.enabledTaking(e.PartnerUser, e.Type) {
			if endpoint == "" || ep.ID == endpoint {
				o.makeDue(e.Seq, ep.Seq, now, true)
				n++
			}
		}
	}
	return n, nil
}

// Backlog returns the pending deliveries and the creation of the oldest
// one's event.
func (o *Outbox) Backlog(context.Context) (int64, time.Time, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var n int64
	var oldest time.Time
	for _, d := range o.deliveries {
		if d.state != ports.DeliveryPending {
			continue
		}
		n++
		if i := slices.IndexFunc(o.events, func(e *outboxEvent) bool { return e.seq == d.event }); i >= 0 {
			if at := o.events[i].createdAt; oldest.IsZero() || at.Before(oldest) {
				oldest = at
			}
		}
	}
	return n, oldest, nil
}

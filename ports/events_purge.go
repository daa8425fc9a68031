package ports

import (
	"context"
	"errors"
	"time"

	"github.com/lender/disbursementd/domain"
)

// EventPurgeStore deletes old events with their deliveries and attempts:
// the part of DeliveryStore that the retention of events drives.
type EventPurgeStore interface {
	PurgeEvents(ctx context.Context, before time.Time, limit int, apply bool) (int64, error)
}

// EventPurge is the use case "events are kept events.retention" (contract
// §11): an operator's command deletes what is older, batch by batch.
type EventPurge struct {
	store     EventPurgeStore
	clock     Clock
	retention time.Duration
	batch     int
}

// NewEventPurge returns the use case on store: events older than
// retention (events.retention, above 0) go, batch (above 0) at a time.
func NewEventPurge(store EventPurgeStore, clock Clock, retention time.Duration, batch int) (*EventPurge, error) {
	if store == nil || clock == nil || retention <= 0 || batch < 1 {
		return nil, errors.New("ports: NewEventPurge needs a store, a clock, a retention above 0 and a batch of 1 or more")
	}
	return &EventPurge{store: store, clock: clock, retention: retention, batch: batch}, nil
}

// Run deletes, with apply, every event created before now - retention,
// with its deliveries and attempts, one batch per statement; without
// apply it only counts them. It returns how many and the bound; a failing
// store is domain.ErrUnavailable, after the batches already deleted.
func (p *EventPurge) Run(ctx context.Context, apply bool) (int64, time.Time, error) {
	before := p.clock.Now().UTC().Add(-p.retention)
	var total int64
	for {
		n, err := p.store.PurgeEvents(ctx, before, p.batch, apply)
		total += n
		switch {
		case err != nil:
			return total, before, domain.Unavailable("events purge: the database failed").WithCause(err)
		case !apply || n < int64(p.batch):
			return total, before, nil
		}
	}
}

package ports

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// EventPurgeStore is what the events' retention asks of the store
// (DeliveryStore.PurgeEvents).
type EventPurgeStore interface {
	PurgeEvents(ctx context.Context, before time.Time, limit int, apply bool) (int64, error)
}

// EventPurge is the use case "events are kept events.retention" (contract
// §11; the purge command): it deletes the events created longer ago,
// with their deliveries and their attempts, a batch per transaction.
// Events of reports purged earlier are no longer listed; this removes
// them too.
type EventPurge struct {
	store EventPurgeStore
	clock Clock
	batch int
}

// NewEventPurge returns the events' purge on store, batch events per
// transaction.
func NewEventPurge(store EventPurgeStore, clock Clock, batch int) (*EventPurge, error) {
	if store == nil || clock == nil || batch <= 0 {
		return nil, errors.New("ports: NewEventPurge needs a store, a clock and a batch above 0")
	}
	return &EventPurge{store: store, clock: clock, batch: batch}, nil
}

// EventPurgeReport is what one run of the events' purge found and did.
type EventPurgeReport struct {
	Before time.Time // events created before this were purged
	Events int64     // events deleted (or, in a dry run, to delete)
}

// Run deletes, with apply, the events created longer than retention ago,
// a batch at a time until a batch finds none; without apply it only
// counts them. A retention of 0 or less is domain.ErrInvalidInput.
func (p *EventPurge) Run(ctx context.Context, retention time.Duration, apply bool) (EventPurgeReport, error) {
	if retention <= 0 {
		return EventPurgeReport{}, domain.NewError(domain.ErrInvalidInput, "invalid_retention",
			fmt.Sprintf("events.retention %s: it must be above 0", retention))
	}
	rep := EventPurgeReport{Before: p.clock.Now().UTC().Add(-retention)}
	if !apply {
		n, err := p.store.PurgeEvents(ctx, rep.Before, p.batch, false)
		if err != nil {
			return rep, fmt.Errorf("count events before %s: %w", rep.Before.Format(time.RFC3339), err)
		}
		rep.Events = n
		return rep, nil
	}
	for {
		n, err := p.store.PurgeEvents(ctx, rep.Before, p.batch, true)
		if err != nil {
			return rep, fmt.Errorf("purge events before %s: %w", rep.Before.Format(time.RFC3339), err)
		}
		rep.Events += n
		if n == 0 {
			return rep, nil
		}
	}
}

package fakes

import (
	"cmp"
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// event is e as the store reads it, false when its report was purged;
// o.mu is held.
func (o *Outbox) event(e *outboxEvent) (domain.Event, bool) {
	r, err := o.row(e.report)
	if err != nil {
		return domain.Event{}, false
	}
	return domain.Event{Seq: e.seq, Type: e.typ, CreatedAt: e.createdAt, PartnerUser: e.user,
		Receipt: e.typ.ReceiptAt(o.receipt(e.report, r))}, true
}

func position(e domain.Event) ports.EventPosition {
	return ports.EventPosition{CreatedAt: e.CreatedAt, Seq: e.Seq}
}

// ListEvents returns f.User's events that match f, in list order.
func (o *Outbox) ListEvents(ctx context.Context, f ports.EventFilter) ([]domain.Event, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("list events: limit %d, want > 0", f.Limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []domain.Event
	for _, row := range o.events {
		e, ok := o.event(row)
		switch {
		case !ok, e.PartnerUser != f.User, len(f.Types) > 0 && !slices.Contains(f.Types, e.Type),
			!f.Before.IsZero() && !e.CreatedAt.Before(f.Before), !f.After.Before(position(e)):
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b domain.Event) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Seq, b.Seq))
	})
	return out[:min(len(out), f.Limit)], nil
}

// GetEvent returns user's event at p.
func (o *Outbox) GetEvent(_ context.Context, user string, p ports.EventPosition) (domain.Event, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	e, err := o.eventAt(user, p)
	if err != nil {
		return domain.Event{}, fmt.Errorf("get event: %w", err)
	}
	return e, nil
}

// eventAt is user's event at p; o.mu is held.
func (o *Outbox) eventAt(user string, p ports.EventPosition) (domain.Event, error) {
	for _, row := range o.events {
		if row.seq != p.Seq {
			continue
		}
		if e, ok := o.event(row); ok && e.PartnerUser == user && e.CreatedAt.Equal(p.CreatedAt) {
			return e, nil
		}
	}
	return domain.Event{}, fmt.Errorf("event %d of this partner: %w", p.Seq, domain.ErrNotFound)
}

// PurgeEvents deletes, with apply, up to limit events created before
// before with their deliveries and attempts; without apply it counts
// them all.
func (o *Outbox) PurgeEvents(_ context.Context, before time.Time, limit int, apply bool) (int64, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("purge events: limit %d, want > 0", limit)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	gone := map[int64]bool{}
	var n int64
	kept := o.events[:0]
	for _, e := range o.events {
		if e.createdAt.Before(before) && (!apply || n < int64(limit)) {
			n++
			if apply {
				gone[e.seq] = true
				continue
			}
		}
		kept = append(kept, e)
	}
	o.events = kept
	o.deliveries = slices.DeleteFunc(o.deliveries, func(d *outboxDelivery) bool { return gone[d.event] })
	o.attempts = slices.DeleteFunc(o.attempts, func(a outboxAttempt) bool { return gone[a.event] })
	return n, nil
}

package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// RedeliverEvent makes user's event at p due again at now for each of
// user's enabled endpoints that takes its type (makeDue: a delivery made
// where there was none, a finished one made pending again), and returns
// how many; domain.ErrNotFound for an event not the partner's, or whose
// report was purged.
func (s *Store) RedeliverEvent(ctx context.Context, user string, p ports.EventPosition, now time.Time) (int, error) {
	var n int
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n = 0
		e, err := s.eventByID(ctx, tx, user, p)
		if err != nil {
			return err
		}
		endpoints, err := enabledEndpoints(ctx, tx, "partner_user = ?", []any{user})
		if err != nil {
			return err
		}
		var pairs [][2]int64
		for _, ep := range endpoints {
			if ep.Takes(e.Type) {
				pairs = append(pairs, [2]int64{e.Seq, ep.Seq})
			}
		}
		n = len(pairs)
		return s.makeDue(ctx, tx, pairs, now, true)
	})
	if err != nil {
		return 0, fmt.Errorf("redeliver event: %w", err)
	}
	return n, nil
}

// redeliverChunk bounds the events one transaction of RedeliverSince
// makes due again.
const redeliverChunk = 500

// RedeliverSince makes every event created at or after since due again
// at now, to every enabled endpoint of its partner that takes its type
// (only the one whose public id is endpoint, when it is not ""), and
// returns how many deliveries it made due. Each endpoint's events of
// each type are a range of the events' list index, read and made due
// redeliverChunk at a time, each chunk its own transaction; events of
// purged reports are left out.
func (s *Store) RedeliverSince(ctx context.Context, since time.Time, endpoint string, now time.Time) (int, error) {
	where, args := "1 = 1", []any(nil)
	if endpoint != "" {
		where, args = "public_id = ?", []any{endpoint}
	}
	endpoints, err := enabledEndpoints(ctx, s.write.sql, where, args)
	if err != nil {
		return 0, fmt.Errorf("redeliver since %s: %w", since.UTC().Format(time.RFC3339), err)
	}
	total := 0
	for _, ep := range endpoints {
		types := ep.EventTypes
		if len(types) == 0 {
			types = domain.EventTypes
		}
		for _, t := range types {
			n, err := s.redeliverRange(ctx, ep, t, since, now)
			total += n
			if err != nil {
				return total, fmt.Errorf("redeliver since %s to endpoint %d: %w", since.UTC().Format(time.RFC3339), ep.Seq, err)
			}
		}
	}
	return total, nil
}

// redeliverRange makes ep's events of type t created at or after since
// due again, a page of them at a time in list order, and returns how many.
func (s *Store) redeliverRange(ctx context.Context, ep domain.Endpoint, t domain.EventType, since, now time.Time) (int, error) {
	total := 0
	f := ports.EventFilter{User: ep.PartnerUser, Types: []domain.EventType{t}, After: ports.EventPosition{CreatedAt: since}, Limit: redeliverChunk}
	for {
		var page []domain.Event
		err := s.inTx(ctx, func(tx *sql.Tx) error {
			var err error
			if page, err = s.eventsPage(ctx, tx, f); err != nil || len(page) == 0 {
				return err
			}
			pairs := make([][2]int64, len(page))
			for i, e := range page {
				pairs[i] = [2]int64{e.Seq, ep.Seq}
			}
			return s.makeDue(ctx, tx, pairs, now, true)
		})
		if err != nil {
			return total, err
		}
		total += len(page)
		if len(page) < f.Limit {
			return total, nil
		}
		last := page[len(page)-1]
		f.After = ports.EventPosition{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
}

// Backlog returns how many deliveries are pending and when the event of
// the oldest pending one was created (zero when none is): a range of the
// (state, next_at) index, each delivery's event by its primary key.
func (s *Store) Backlog(ctx context.Context) (int64, time.Time, error) {
	var n int64
	var oldest any
	err := s.read.sql.QueryRowContext(ctx, "SELECT COUNT(*), MIN(e.created_at) FROM "+deliveriesTable+" AS d"+
		indexHint(s.driver, "ix_webhook_deliveries_due")+" JOIN "+eventsTable+" AS e ON e.id = d.event_id WHERE d.state = "+pendingState).
		Scan(&n, &oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("backlog: %w", err)
	}
	if oldest == nil {
		return n, time.Time{}, nil
	}
	at, err := exactTime(oldest)
	if err != nil {
		return 0, time.Time{}, fmt.Errorf("backlog: oldest event: %w", err)
	}
	return n, at, nil
}

package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// successEvery is how often a delivered attempt writes its endpoint's
// last_success_at: once it is this recent, later successes leave the row
// alone, so deliveries to one endpoint on several Galera nodes do not all
// write (and fail certification on) its one row. The time an endpoint
// shows is then at most this much older than its last success.
const successEvery = time.Minute

// Finish records o.Attempt in its endpoint's log (keeping the newest
// domain.MaxAttemptsListed) and, when owner still holds the delivery's
// lease, sets its state, counts the attempt, frees the lease, stamps the
// endpoint's last success on a delivery and disables the endpoint with
// o.DisableReason when set, all in one transaction (run again after a
// 1213). False when the lease was no longer owner's: only the attempt was
// recorded, and the lease is freed where a redelivery left owner's
// ports.LostLease mark (nobody leased the delivery since).
func (s *Store) Finish(ctx context.Context, owner string, o ports.DeliveryOutcome) (bool, error) {
	_, eventSeq, ok := domain.ParseEventID(o.Attempt.EventID)
	if !ok {
		return false, fmt.Errorf("finish delivery %d: %q is not an event id", o.ID, domain.Clip(o.Attempt.EventID))
	}
	switch o.State {
	case ports.DeliveryPending, ports.DeliveryDelivered, ports.DeliveryFailed:
	default:
		return false, fmt.Errorf("finish delivery %d: %q is not a delivery's state", o.ID, domain.Clip(string(o.State)))
	}
	if len(o.Attempt.Error) > maxErrorClass {
		return false, fmt.Errorf("finish delivery %d: error class %q over %d bytes", o.ID, domain.Clip(o.Attempt.Error), maxErrorClass)
	}
	if err := ports.CheckLeaseOwner(owner); err != nil {
		return false, fmt.Errorf("finish delivery %d: %w", o.ID, err)
	}
	var held bool
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		held = false // as a run lost to a conflict left it: not
		if err := recordAttempt(ctx, tx, o.EndpointSeq, eventSeq, o.Attempt); err != nil {
			return fmt.Errorf("record the attempt: %w", err)
		}
		var nextAt, deliveredAt any
		if !o.NextAt.IsZero() {
			nextAt = o.NextAt.UnixNano()
		}
		if o.State == ports.DeliveryDelivered {
			deliveredAt = o.Attempt.At.UTC()
		}
		n, err := affected(ctx, tx, "UPDATE "+deliveriesTable+" SET state = ?, attempts = attempts + 1, next_at = COALESCE(?, next_at),"+
			" lease_owner = NULL, lease_until = NULL, delivered_at = ? WHERE id = ? AND lease_owner = ?",
			string(o.State), nextAt, deliveredAt, o.ID, owner)
		if held = n == 1; err != nil {
			return err
		}
		if !held {
			// A redelivery that took the lease from this attempt left
			// owner's mark and the lease's time (makeDue), so that no other
			// replica starts the delivery while this attempt may be under
			// way. It is over now: the redelivery is free at once, not when
			// the lease would have run out. Only owner's own mark is freed:
			// a lease taken since, or its mark, is another attempt's.
			_, err := tx.ExecContext(ctx, "UPDATE "+deliveriesTable+" SET lease_owner = NULL, lease_until = NULL WHERE id = ? AND lease_owner = ?",
				o.ID, ports.LostLease+owner)
			return err
		}
		if o.State == ports.DeliveryDelivered {
			at := o.Attempt.At.UTC()
			if _, err := tx.ExecContext(ctx, "UPDATE "+endpointsTable+" SET last_success_at = ? WHERE id = ?"+
				" AND (last_success_at IS NULL OR last_success_at < ?)", at, o.EndpointSeq, at.Add(-successEvery)); err != nil {
				return err
			}
		}
		if o.DisableReason != "" {
			_, err = tx.ExecContext(ctx, "UPDATE "+endpointsTable+" SET status = ?, disabled_reason = ? WHERE id = ?",
				string(domain.EndpointDisabled), clipChars(o.DisableReason, domain.MaxWebhookDescriptionChars), o.EndpointSeq)
		}
		return err
	})
	if err != nil {
		return false, fmt.Errorf("finish delivery %d: %w", o.ID, err)
	}
	return held, nil
}

// attemptsSlack is how many attempts past domain.MaxAttemptsListed an
// endpoint's log may hold before recordAttempt trims it.
const attemptsSlack = 100

// maxErrorClass is the longest error class webhook_attempts.error holds.
const maxErrorClass = 64

// recordAttempt adds a to endpoint's log, when the endpoint is still
// there, and, once the log holds attemptsSlack more than
// domain.MaxAttemptsListed, deletes its attempts older than the newest
// domain.MaxAttemptsListed (through its (endpoint_id, id) index). Trimming
// at every attempt made the concurrent finishes of one endpoint's
// deliveries delete the same rows and wait for each other's locks: the
// soak's delivery rate rose by a quarter with the trim off.
func recordAttempt(ctx context.Context, tx *sql.Tx, endpoint, event int64, a domain.Attempt) error {
	n, err := affected(ctx, tx, "INSERT INTO "+attemptsTable+" (endpoint_id, event_id, at, status_code, error, duration_ms)"+
		" SELECT id, ?, ?, ?, ?, ? FROM "+endpointsTable+" WHERE id = ?",
		event, a.At.UTC(), a.StatusCode, a.Error, a.Duration.Milliseconds(), endpoint)
	if err != nil || n == 0 {
		return err
	}
	nth := func(offset int) (int64, error) {
		var id int64
		err := tx.QueryRowContext(ctx, "SELECT id FROM "+attemptsTable+" WHERE endpoint_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?",
			endpoint, offset).Scan(&id)
		return id, err
	}
	if _, err := nth(domain.MaxAttemptsListed + attemptsSlack); errors.Is(err, sql.ErrNoRows) {
		return nil
	} else if err != nil {
		return err
	}
	oldest, err := nth(domain.MaxAttemptsListed)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, "DELETE FROM "+attemptsTable+" WHERE endpoint_id = ? AND id <= ?", endpoint, oldest)
	return err
}

// Attempts returns the newest attempts (at most limit) of user's
// endpoint id, newest first; domain.ErrNotFound.
func (s *Store) Attempts(ctx context.Context, user, id string, limit int) ([]domain.Attempt, error) {
	if limit <= 0 {
		return nil, fmt.Errorf("attempts: limit %d, want > 0", limit)
	}
	limit = min(limit, domain.MaxAttemptsListed) // the log may hold attemptsSlack more
	ctx, cancel := s.lookupContext(ctx)
	defer cancel()
	e, err := endpointByID(ctx, s.look.sql, user, id)
	if err != nil {
		return nil, fmt.Errorf("attempts: %w", err)
	}
	out, err := queryAll(ctx, s.look, "SELECT a.at, a.status_code, a.error, a.duration_ms, a.event_id, ev.created_at FROM "+
		attemptsTable+" AS a JOIN "+eventsTable+" AS ev ON ev.id = a.event_id WHERE a.endpoint_id = ? ORDER BY a.id DESC LIMIT ?",
		[]any{e.Seq, limit}, limit, func(rows *sql.Rows) (domain.Attempt, error) {
			var a domain.Attempt
			var at, created any
			var ms, event int64
			if err := rows.Scan(&at, &a.StatusCode, &a.Error, &ms, &event, &created); err != nil {
				return a, err
			}
			var err error
			if a.At, err = storedTime(at); err != nil {
				return a, err
			}
			c, err := exactTime(created)
			a.EventID, a.EndpointID, a.Duration = domain.EventID(c, event), e.ID, time.Duration(ms)*time.Millisecond
			return a, err
		})
	if err != nil {
		return nil, fmt.Errorf("attempts: %w", err)
	}
	// Ids of two database nodes interleave: the newest, by their time.
	slices.SortStableFunc(out, func(a, b domain.Attempt) int { return b.At.Compare(a.At) })
	return out, nil
}

// clipChars is s cut to n characters: the longest text a column of n
// characters holds.
func clipChars(s string, n int) string {
	for i := range s {
		if n == 0 {
			return s[:i]
		}
		n--
	}
	return s
}

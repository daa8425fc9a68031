package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.DeliveryStore = (*Store)(nil)

// The deliveries' tables (migration 7).
const (
	deliveriesTable = "webhook_deliveries"
	attemptsTable   = "webhook_attempts"
)

// pendingState is ports.DeliveryPending as the statements write it.
const pendingState = "'" + string(ports.DeliveryPending) + "'"

// Dispatch takes up to limit events not yet dispatched, by id, and in one
// transaction makes a pending delivery, due at now, per enabled endpoint
// of its partner that takes its type, and marks them dispatched. The
// unique (event, endpoint) key makes a second dispatch of an event (two
// replicas at once) add nothing: on one server the second waits for the
// first's keys and skips them; on two Galera nodes one commits and the
// other runs again (a 1213) and finds them dispatched.
func (s *Store) Dispatch(ctx context.Context, now time.Time, limit int) (int, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("dispatch: limit %d, want > 0", limit)
	}
	// Most polls find nothing: they look first, outside a transaction, so
	// that an idle dispatcher writes nothing and commits nothing.
	var pending int64
	switch err := s.write.sql.QueryRowContext(ctx, "SELECT id FROM "+eventsTable+indexHint(s.driver, "ix_report_events_dispatched")+
		" WHERE dispatched = 0 LIMIT 1").Scan(&pending); {
	case errors.Is(err, sql.ErrNoRows):
		return 0, nil
	case err != nil:
		return 0, fmt.Errorf("dispatch: %w", err)
	}
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n = 0 // what a run lost to a conflict counted is not
		type event struct {
			seq  int64
			user string
			typ  domain.EventType
		}
		events, err := queryTx(ctx, tx, "SELECT id, partner_user, type FROM "+eventsTable+indexHint(s.driver, "ix_report_events_dispatched")+
			" WHERE dispatched = 0 ORDER BY id LIMIT ?", []any{limit}, func(rows *sql.Rows) (event, error) {
			var e event
			err := rows.Scan(&e.seq, &e.user, &e.typ)
			return e, err
		})
		if err != nil || len(events) == 0 {
			return err
		}
		users := map[string]bool{}
		var userArgs []any
		for _, e := range events {
			if !users[e.user] {
				users[e.user] = true
				userArgs = append(userArgs, e.user)
			}
		}
		endpoints, err := enabledEndpoints(ctx, tx, "partner_user IN "+inList(len(userArgs)), userArgs)
		if err != nil {
			return err
		}
		var pairs [][2]int64
		ids := make([]int64, len(events))
		for i, e := range events {
			ids[i] = e.seq
			for _, ep := range endpoints {
				if ep.PartnerUser == e.user && ep.Takes(e.typ) {
					pairs = append(pairs, [2]int64{e.seq, ep.Seq})
				}
			}
		}
		if err := s.makeDue(ctx, tx, pairs, now, false); err != nil {
			return err
		}
		if err := pairsMade(ctx, tx, pairs, ids); err != nil {
			return err
		}
		n, err = affected(ctx, tx, "UPDATE "+eventsTable+" SET dispatched = 1 WHERE dispatched = 0 AND id IN "+inList(len(ids)), int64Args(ids)...)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("dispatch: %w", err)
	}
	return int(n), nil
}

// enabledEndpoints returns the enabled endpoints that match where, with
// only what a fan-out needs: Seq, PartnerUser, EventTypes.
func enabledEndpoints(ctx context.Context, db execer, where string, args []any) ([]domain.Endpoint, error) {
	return queryTx(ctx, db, "SELECT id, partner_user, event_types FROM "+endpointsTable+" WHERE status = '"+
		string(domain.EndpointEnabled)+"' AND "+where+" ORDER BY id", args, func(rows *sql.Rows) (domain.Endpoint, error) {
		var e domain.Endpoint
		var types string
		if err := rows.Scan(&e.Seq, &e.PartnerUser, &types); err != nil {
			return e, err
		}
		var err error
		e.EventTypes, err = splitTypes(types)
		return e, err
	})
}

// dueChunk bounds the rows of one INSERT that makes deliveries due.
const dueChunk = 200

// makeDue makes each (event, endpoint) of pairs a pending delivery due at
// now. A delivery that exists already is left as it is, or with again
// (a redelivery) made pending and due at now with its attempts counted
// from 0 again. Its lease's holder loses it: lease_owner becomes the
// holder's ports.LostLease mark (lostOwner; a mark stays as it is), so
// that holder's Finish records only its attempt and frees the mark, and
// lease_until stays, so no other replica attempts the delivery while that
// attempt may still be under way.
func (s *Store) makeDue(ctx context.Context, db execer, pairs [][2]int64, now time.Time, again bool) error {
	for len(pairs) > 0 {
		chunk := pairs[:min(len(pairs), dueChunk)]
		pairs = pairs[len(chunk):]
		values := make([]string, len(chunk))
		args := make([]any, 0, 3*len(chunk)+1)
		for i, p := range chunk {
			values[i] = "(?, ?, " + pendingState + ", 0, ?)"
			args = append(args, p[0], p[1], now.UnixNano())
		}
		q := "INSERT INTO " + deliveriesTable + " (event_id, endpoint_id, state, attempts, next_at) VALUES " + strings.Join(values, ", ")
		switch {
		case s.driver == MySQL && again:
			q += " ON DUPLICATE KEY UPDATE state = " + pendingState + ", attempts = 0, next_at = ?, lease_owner = " + lostOwner(MySQL)
			args = append(args, now.UnixNano())
		case s.driver == MySQL:
			q += " ON DUPLICATE KEY UPDATE id = id"
		case again:
			q += " ON CONFLICT(event_id, endpoint_id) DO UPDATE SET state = " + pendingState +
				", attempts = 0, next_at = excluded.next_at, lease_owner = " + lostOwner(SQLite)
		default:
			q += " ON CONFLICT(event_id, endpoint_id) DO NOTHING"
		}
		if _, err := db.ExecContext(ctx, q, args...); err != nil {
			return fmt.Errorf("make deliveries due: %w", err)
		}
	}
	return nil
}

// lostOwner is the SQL (in driver's dialect) of the lease_owner a
// redelivery leaves: none where there was none, a ports.LostLease mark as
// it is, and the holder's name marked.
func lostOwner(driver string) string {
	mark := "CONCAT('" + ports.LostLease + "', lease_owner)"
	if driver != MySQL {
		mark = "'" + ports.LostLease + "' || lease_owner"
	}
	return "CASE WHEN lease_owner IS NULL OR SUBSTR(lease_owner, 1, " + strconv.Itoa(len(ports.LostLease)) + ") = '" +
		ports.LostLease + "' THEN lease_owner ELSE " + mark + " END"
}

// Due returns up to limit pending deliveries due at now (and at or after
// after, when it is set) whose lease, if any, has run out, the longest due
// first, but for those of the endpoints in busy and of the partners in
// busyPartners, each with its endpoint's partner ("" for a delivery whose
// endpoint is gone: it is still returned, and its attempt drops it);
// read through the (state, next_at) index, a range of it when after is
// set, each endpoint found by its primary key.
func (s *Store) Due(ctx context.Context, now time.Time, limit int, busy []int64, busyPartners []string, after time.Time) ([]ports.DeliveryRef, error) {
	if limit <= 0 {
		return nil, nil
	}
	q := "SELECT d.id, d.endpoint_id, e.partner_user FROM " + deliveriesTable + " AS d" + indexHint(s.driver, "ix_webhook_deliveries_due") +
		" LEFT JOIN " + endpointsTable + " AS e ON e.id = d.endpoint_id" +
		" WHERE d.state = " + pendingState + " AND d.next_at <= ? AND (d.lease_until IS NULL OR d.lease_until < ?)"
	args := []any{now.UnixNano(), now.UnixNano()}
	if !after.IsZero() {
		q += " AND d.next_at >= ?"
		args = append(args, after.UnixNano())
	}
	if len(busy) > 0 {
		q += " AND d.endpoint_id NOT IN " + inList(len(busy))
		args = append(args, int64Args(busy)...)
	}
	if len(busyPartners) > 0 {
		q += " AND (e.partner_user IS NULL OR e.partner_user NOT IN " + inList(len(busyPartners)) + ")"
		for _, p := range busyPartners {
			args = append(args, p)
		}
	}
	out, err := queryAll(ctx, s.read, q+" ORDER BY d.next_at LIMIT ?", append(args, limit), limit, func(rows *sql.Rows) (ports.DeliveryRef, error) {
		var r ports.DeliveryRef
		var partner sql.NullString
		err := rows.Scan(&r.ID, &r.EndpointSeq, &partner)
		r.Partner = partner.String
		return r, err
	})
	if err != nil {
		return nil, fmt.Errorf("due deliveries: %w", err)
	}
	return out, nil
}

// Lease takes delivery id for owner until until by one conditional
// UPDATE: still pending, due at now, and its lease free, run out or
// owner's own. One row changed is the lease. Two replicas racing for it
// on one server take turns on the row's lock and the second finds it
// leased; on two Galera nodes both may change it locally and certification
// refuses the later commit (1213, or after the server's own retry of the
// statement, no row): either is a lease lost, not an error.
func (s *Store) Lease(ctx context.Context, id int64, owner string, now, until time.Time) (bool, error) {
	if err := ports.CheckLeaseOwner(owner); err != nil {
		return false, fmt.Errorf("lease delivery %d: %w", id, err)
	}
	n, err := affected(ctx, s.write.sql, "UPDATE "+deliveriesTable+" SET lease_owner = ?, lease_until = ? WHERE id = ? AND state = "+
		pendingState+" AND next_at <= ? AND (lease_until IS NULL OR lease_until < ? OR lease_owner = ?)",
		owner, until.UnixNano(), id, now.UnixNano(), now.UnixNano(), owner)
	switch {
	case err != nil && (isConflict(err) || isLockWait(err)):
		s.conflicts.Add(1)
		return false, nil
	case err != nil:
		return false, fmt.Errorf("lease delivery %d: %w", id, err)
	}
	return n == 1, nil
}

// Load returns delivery id with its event (the report's receipt joined)
// and its endpoint, secrets included; domain.ErrNotFound when any of them
// is gone.
func (s *Store) Load(ctx context.Context, id int64) (ports.Delivery, error) {
	q := "SELECT d.id, d.attempts, " + eventNames + ", " + qualified("w", endpointNames) + " FROM " + deliveriesTable + " AS d JOIN " +
		eventsTable + " AS e ON e.id = d.event_id JOIN " + StagingTable + " AS s ON s.id = e.report_id JOIN " +
		endpointsTable + " AS w ON w.id = d.endpoint_id WHERE d.id = ?"
	out, err := queryAll(ctx, s.read, q, []any{id}, 1, func(rows *sql.Rows) (ports.Delivery, error) {
		var d ports.Delivery
		var ev eventCols
		var ep endpointCols
		if err := rows.Scan(append(append([]any{&d.ID, &d.Attempts}, ev.dest()...), ep.dest()...)...); err != nil {
			return d, err
		}
		var err error
		if d.Event, err = ev.event(); err != nil {
			return d, err
		}
		d.Endpoint, err = ep.endpoint()
		return d, err
	})
	switch {
	case err != nil:
		return ports.Delivery{}, fmt.Errorf("load delivery %d: %w", id, err)
	case len(out) == 0:
		return ports.Delivery{}, fmt.Errorf("delivery %d, its event, report or endpoint: %w", id, domain.ErrNotFound)
	}
	return out[0], nil
}

// queryTx runs query through db (a transaction, or a pool) and returns
// what scan makes of each row.
func queryTx[T any](ctx context.Context, db execer, query string, args []any, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := db.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []T
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, rows.Err()
}

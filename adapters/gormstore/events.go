package gormstore

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"slices"
	"strings"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.EventStore = (*Store)(nil)

// eventsTable holds the events (migration 7): one row per state a report
// entered, written in the transaction of the state.
const eventsTable = "report_events"

// eventListIndex is the index of a partner's events of one type in list
// order (partner_user, type, created_at, id).
const eventListIndex = "ix_report_events_user_type"

// eventNames are the columns of an event as eventCols reads them: the
// event's, then its report's receipt (the staging row joined as s).
var eventNames = "e.id, e.type, e.created_at, e.partner_user, " + qualified("s", receiptNames)

// ListEvents returns a page of f.User's events in list order (created_at,
// then id). Each type's events are one range of eventListIndex, read from
// f.After on and stopped by the LIMIT; a page of several types reads each
// type's range and keeps the first f.Limit of them all. An event whose
// report was purged is not listed (the join finds no row).
func (s *Store) ListEvents(ctx context.Context, f ports.EventFilter) ([]domain.Event, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("list events: limit %d, want > 0", f.Limit)
	}
	ctx, cancel := s.lookupContext(ctx)
	defer cancel()
	out, err := s.eventsPage(ctx, s.look.sql, f)
	if err != nil {
		return nil, fmt.Errorf("list events: %w", err)
	}
	return out, nil
}

// eventsPage runs eventListQuery through db and returns the first f.Limit
// of its rows in list order.
func (s *Store) eventsPage(ctx context.Context, db execer, f ports.EventFilter) ([]domain.Event, error) {
	query, args := eventListQuery(s.driver, f)
	out, err := queryTx(ctx, db, query, args, scanEvent)
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b domain.Event) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Seq, b.Seq))
	})
	return out[:min(len(out), f.Limit)], nil
}

// EventListStatement is the statement ListEvents runs for f, and its
// arguments, for EXPLAIN (the plan tests) and for operators.
func (s *Store) EventListStatement(f ports.EventFilter) (string, []any) {
	return eventListQuery(s.driver, f)
}

// eventListQuery is the SELECT of ListEvents: one keyset range per type,
// as listQuery's for reports (and for the same reasons: the index named,
// and on SQLite the position's instant and the later ones as two SELECTs
// whose UNION ALL stops at the LIMIT), the types' ranges joined by UNION
// ALL; ListEvents sorts the at most f.Limit rows of each.
func eventListQuery(driver string, f ports.EventFilter) (string, []any) {
	types := slices.Clone(f.Types)
	if len(types) == 0 {
		types = domain.EventTypes
	}
	slices.Sort(types)
	types = slices.Compact(types)
	after := !f.After.CreatedAt.IsZero() || f.After.Seq > 0
	at := f.After.CreatedAt.UTC()
	var parts []string
	var args []any
	for _, t := range types {
		var q string
		var a []any
		switch {
		case after && driver == SQLite:
			same, sameArgs := eventRange(driver, f, t, "e.created_at = ? AND e.id > ?", []any{at, f.After.Seq}, "e.id")
			later, laterArgs := eventRange(driver, f, t, "e.created_at > ?", []any{at}, "e.created_at, e.id")
			q = "SELECT * FROM (" + same + ") UNION ALL SELECT * FROM (" + later + ") LIMIT ?"
			a = append(append(sameArgs, laterArgs...), f.Limit)
		case after:
			q, a = eventRange(driver, f, t, "(e.created_at > ? OR (e.created_at = ? AND e.id > ?))", []any{at, at, f.After.Seq}, "e.created_at, e.id")
		default:
			q, a = eventRange(driver, f, t, "", nil, "e.created_at, e.id")
		}
		if len(types) > 1 {
			if driver == SQLite {
				q = "SELECT * FROM (" + q + ")"
			} else {
				q = "(" + q + ")"
			}
		}
		parts = append(parts, q)
		args = append(args, a...)
	}
	return strings.Join(parts, " UNION ALL "), args
}

// eventRange is one SELECT of eventListQuery: f's partner, type t, the
// list delay's bound, the lower bound from (with its arguments; "" for
// none), in order, at most f.Limit rows. The events are read first, in
// the index's order, and each finds its report by primary key (the join
// order is fixed: STRAIGHT_JOIN, and SQLite's CROSS JOIN).
func eventRange(driver string, f ports.EventFilter, t domain.EventType, from string, fromArgs []any, order string) (string, []any) {
	join := " STRAIGHT_JOIN "
	if driver == SQLite {
		join = " CROSS JOIN "
	}
	var b strings.Builder
	b.WriteString("SELECT " + eventNames + " FROM " + eventsTable + " AS e" + indexHint(driver, eventListIndex) +
		join + StagingTable + " AS s ON s.id = e.report_id WHERE e.partner_user = ? AND e.type = ?")
	args := []any{f.User, string(t)}
	if !f.Before.IsZero() {
		b.WriteString(" AND e.created_at < ?")
		args = append(args, f.Before.UTC())
	}
	if from != "" {
		b.WriteString(" AND " + from)
		args = append(args, fromArgs...)
	}
	b.WriteString(" ORDER BY " + order + " LIMIT ?")
	return b.String(), append(args, f.Limit)
}

// GetEvent returns user's event at p, found by its primary key; another
// partner's, one whose time is not p's, and one whose report was purged
// are domain.ErrNotFound.
func (s *Store) GetEvent(ctx context.Context, user string, p ports.EventPosition) (domain.Event, error) {
	ctx, cancel := s.lookupContext(ctx)
	defer cancel()
	e, err := s.eventByID(ctx, s.look.sql, user, p)
	if err != nil {
		return domain.Event{}, fmt.Errorf("get event: %w", err)
	}
	return e, nil
}

// eventByID reads user's event at p through db; domain.ErrNotFound.
func (s *Store) eventByID(ctx context.Context, db execer, user string, p ports.EventPosition) (domain.Event, error) {
	rows, err := db.QueryContext(ctx, "SELECT "+eventNames+" FROM "+eventsTable+" AS e JOIN "+StagingTable+
		" AS s ON s.id = e.report_id WHERE e.id = ? AND e.partner_user = ?", p.Seq, user)
	if err != nil {
		return domain.Event{}, err
	}
	defer rows.Close()
	if !rows.Next() {
		if err := rows.Err(); err != nil {
			return domain.Event{}, err
		}
		return domain.Event{}, fmt.Errorf("event %d of this partner: %w", p.Seq, domain.ErrNotFound)
	}
	e, err := scanEvent(rows)
	if err != nil {
		return domain.Event{}, err
	}
	if !e.CreatedAt.Equal(p.CreatedAt) {
		return domain.Event{}, fmt.Errorf("event %d of this partner at that time: %w", p.Seq, domain.ErrNotFound)
	}
	return e, nil
}

// eventCols receives the columns of eventNames.
type eventCols struct {
	seq       int64
	typ, user string
	created   any
	receipt   receiptCols
}

func (ec *eventCols) dest() []any {
	return append([]any{&ec.seq, &ec.typ, &ec.created, &ec.user}, ec.receipt.dest()...)
}

func (ec *eventCols) event() (domain.Event, error) {
	t, ok := domain.ParseEventType(ec.typ)
	if !ok {
		return domain.Event{}, fmt.Errorf("event %d: type %q is not an event type", ec.seq, domain.Clip(ec.typ))
	}
	// Exact, not cut to the millisecond: the public id and the cursor
	// name the stored value.
	at, err := exactTime(ec.created)
	if err != nil {
		return domain.Event{}, fmt.Errorf("event %d: created_at: %w", ec.seq, err)
	}
	r, err := ec.receipt.receipt()
	if err != nil {
		return domain.Event{}, fmt.Errorf("event %d: %w", ec.seq, err)
	}
	return domain.Event{Seq: ec.seq, Type: t, CreatedAt: at, PartnerUser: ec.user, Receipt: t.ReceiptAt(r)}, nil
}

func scanEvent(rows *sql.Rows) (domain.Event, error) {
	var ec eventCols
	if err := rows.Scan(ec.dest()...); err != nil {
		return domain.Event{}, err
	}
	return ec.event()
}

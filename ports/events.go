package ports

import (
	"context"
	"encoding/base64"
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// EventStore reads a partner's events (contract §11). An event's receipt
// is read from its report's row as it was at the event (a report's
// receipt never changes, and a decision is final); an event whose report
// was purged is not listed.
type EventStore interface {
	// ListEvents returns, in list order (EventPosition ascending), at most
	// f.Limit of f.User's events created before f.Before, after f.After,
	// of one of f.Types (any when empty). A page reads at most f.Limit
	// entries of the index of each type it lists, in that index's order.
	ListEvents(ctx context.Context, f EventFilter) ([]domain.Event, error)
	// GetEvent returns user's event of that position, or
	// domain.ErrNotFound (another partner's included).
	GetEvent(ctx context.Context, user string, p EventPosition) (domain.Event, error)
}

// EventPosition is an event's place in list order: its creation time,
// then its row id (domain.EventID writes it).
type EventPosition struct {
	CreatedAt time.Time
	Seq       int64 // 0: before every event of that instant
}

// Before reports whether p comes before q in list order.
func (p EventPosition) Before(q EventPosition) bool {
	if !p.CreatedAt.Equal(q.CreatedAt) {
		return p.CreatedAt.Before(q.CreatedAt)
	}
	return p.Seq < q.Seq
}

// EventFilter selects a partner's events.
type EventFilter struct {
	User   string
	Types  []domain.EventType // empty: every type
	After  EventPosition      // zero: from the first
	Before time.Time          // only events created before this (the list delay)
	Limit  int                // > 0
}

// EventEncoder writes an event as partners read it, so that a webhook's
// body and a /v1 page hold the same receipt JSON. The composition root
// gives the delivery workers the HTTP adapter's.
type EventEncoder interface {
	// WebhookBody is a delivery's body: {"type", "timestamp", "data"}.
	WebhookBody(e domain.Event) ([]byte, error)
}

// Events is the use case "a partner reads what became of its reports".
type Events struct {
	store EventStore
	clock Clock
	delay time.Duration
}

// NewEvents returns the use case on store; an event is listed once it is
// older than delay (events.list_delay), so a cursor never passes the
// instant of an event whose transaction has not committed yet.
func NewEvents(store EventStore, clock Clock, delay time.Duration) (*Events, error) {
	if store == nil || clock == nil || delay < 0 {
		return nil, errors.New("ports: NewEvents needs a store, a clock and a list delay not below 0")
	}
	return &Events{store: store, clock: clock, delay: delay}, nil
}

// EventQuery asks for one page of a partner's events.
type EventQuery struct {
	User   string
	Types  []string // as sent: each must be a domain.EventType
	Limit  int      // 0: domain.PageDefault
	Cursor string   // an EventPage's NextCursor, or an event's id (read after it); "" for the first page
}

// EventPage is one page of events, oldest first. NextCursor is "" on the
// last page; to read later what came since (after an outage, say), a
// partner passes the id of the last event it handled as the cursor.
type EventPage struct {
	Events     []domain.Event
	NextCursor string
}

// List returns a page of the partner's events. A parameter out of its
// bounds is an error of kind domain.ErrInvalidInput naming it (type,
// limit, cursor); a failing store is domain.ErrUnavailable.
func (s *Events) List(ctx context.Context, q EventQuery) (EventPage, error) {
	f := EventFilter{User: q.User, Limit: q.Limit, Before: s.clock.Now().Add(-s.delay)}
	switch {
	case f.Limit == 0:
		f.Limit = domain.PageDefault
	case f.Limit < 1 || f.Limit > domain.PageMax:
		return EventPage{}, domain.InvalidParameter("limit", domain.PageLimitBound.Es)
	}
	for _, s := range q.Types {
		t, ok := domain.ParseEventType(s)
		if !ok {
			return EventPage{}, domain.InvalidParameter("type", "los tipos son "+domain.EventTypeNames())
		}
		f.Types = append(f.Types, t)
	}
	if at, seq, ok := domain.ParseEventID(q.Cursor); ok {
		// A partner that kept the id of the last event it handled (an
		// outage, a restart) reads on from it.
		f.After = EventPosition{CreatedAt: at, Seq: seq}
	} else if q.Cursor != "" {
		p, err := decodeEventCursor(q.Cursor)
		if err != nil {
			return EventPage{}, err
		}
		f.After = p
	}
	want := f.Limit
	f.Limit++
	events, err := s.store.ListEvents(ctx, f)
	if err != nil {
		return EventPage{}, lookupFailed(err)
	}
	page := EventPage{Events: events}
	if len(events) > want {
		page.Events = events[:want]
		last := page.Events[want-1]
		page.NextCursor = encodeEventCursor(EventPosition{CreatedAt: last.CreatedAt, Seq: last.Seq})
	}
	return page, nil
}

// Get returns the partner's event id (domain.EventID), or
// domain.ErrNotFound (not_found) for an id that is not one, or not the
// partner's.
func (s *Events) Get(ctx context.Context, user, id string) (domain.Event, error) {
	at, seq, ok := domain.ParseEventID(id)
	if !ok {
		return domain.Event{}, domain.NewError(domain.ErrNotFound, "not_found", MsgEventNotFound)
	}
	e, err := s.store.GetEvent(ctx, user, EventPosition{CreatedAt: at, Seq: seq})
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return domain.Event{}, domain.NewError(domain.ErrNotFound, "not_found", MsgEventNotFound).WithCause(err)
	case err != nil:
		return domain.Event{}, lookupFailed(err)
	}
	return e, nil
}

// MsgEventNotFound is the message of an event that is not the
// partner's, or not there.
const MsgEventNotFound = "Evento no encontrado"

// An event cursor is opaque to partners: the unpadded base64url of
// "e1.<created_at in Unix nanoseconds>.<row id>", tamper-checked as the
// report cursor is (cursor.go).
const eventCursorForm = "e1."

func encodeEventCursor(p EventPosition) string {
	b := append([]byte(eventCursorForm), strconv.FormatInt(p.CreatedAt.UnixNano(), 10)...)
	b = append(b, '.')
	b = strconv.AppendInt(b, p.Seq, 10)
	return base64.RawURLEncoding.EncodeToString(b)
}

func decodeEventCursor(c string) (EventPosition, error) {
	bad := domain.InvalidParameter("cursor", "use el next_cursor de la página anterior tal como llegó")
	b, err := base64.RawURLEncoding.DecodeString(c)
	if err != nil || len(b) > 64 {
		return EventPosition{}, bad
	}
	rest, ok := strings.CutPrefix(string(b), eventCursorForm)
	if !ok {
		return EventPosition{}, bad
	}
	at, seq, ok := strings.Cut(rest, ".")
	if !ok {
		return EventPosition{}, bad
	}
	ns, err1 := strconv.ParseInt(at, 10, 64)
	n, err2 := strconv.ParseInt(seq, 10, 64)
	if err1 != nil || err2 != nil || n <= 0 {
		return EventPosition{}, bad
	}
	p := EventPosition{CreatedAt: time.Unix(0, ns).UTC(), Seq: n}
	if encodeEventCursor(p) != c {
		return EventPosition{}, bad
	}
	return p, nil
}

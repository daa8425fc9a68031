package fakes

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var (
	_ ports.DecisionStore = (*ReportStore)(nil)
	_ ports.EventStore    = (*ReportStore)(nil)
)

// eventEntry is one row of the fake's outbox: the event's receipt is read
// from its report's row, as the real store derives it.
type eventEntry struct {
	seq       int64
	report    int64
	typ       domain.EventType
	createdAt time.Time
}

// addEvent writes an event of report id; m.mu is held.
func (m *ReportStore) addEvent(id int64, t domain.EventType, at time.Time) {
	m.events = append(m.events, eventEntry{seq: int64(len(m.events) + 1), report: id, typ: t,
		createdAt: at.UTC().Truncate(time.Millisecond)})
}

// Decide records d on report id when it is received, with its event, and
// returns the receipt after it and true; on a decided report it changes
// nothing and returns its receipt and false; domain.ErrNotFound.
func (m *ReportStore) Decide(ctx context.Context, id int64, d domain.Decision) (domain.StoredReceipt, bool, error) {
	if err := ctx.Err(); err != nil {
		return domain.StoredReceipt{}, false, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.Fail != nil {
		return domain.StoredReceipt{}, false, m.Fail
	}
	if id < 1 || id > int64(len(m.rows)) {
		return domain.StoredReceipt{}, false, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
	}
	if _, decided := m.decisions[id]; decided {
		return m.receiptOf(id, m.rows[id-1]), false, nil
	}
	m.decisions[id] = d
	m.addEvent(id, domain.EventOf(d.Status), d.At)
	return m.receiptOf(id, m.rows[id-1]), true, nil
}

// eventOf is entry e as the store reads it; m.mu is held.
func (m *ReportStore) eventOf(e eventEntry) domain.Event {
	r := m.rows[e.report-1]
	rc := m.receiptOf(e.report, r)
	if e.typ == domain.EventReceived {
		rc.Status, rc.Decision = domain.StatusReceived, domain.Decision{}
	}
	return domain.Event{Seq: e.seq, Type: e.typ, CreatedAt: e.createdAt, PartnerUser: r.PartnerUser, Receipt: rc}
}

// ListEvents returns f.User's events in list order after f.After, created
// before f.Before, of f.Types.
func (m *ReportStore) ListEvents(ctx context.Context, f ports.EventFilter) ([]domain.Event, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("list events: limit %d, want > 0", f.Limit)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []domain.Event
	for _, e := range m.events {
		ev := m.eventOf(e)
		pos := ports.EventPosition{CreatedAt: e.createdAt, Seq: e.seq}
		switch {
		case ev.PartnerUser != f.User, !pos.CreatedAt.Before(f.Before), !f.After.Before(pos),
			len(f.Types) > 0 && !slices.Contains(f.Types, e.typ):
			continue
		}
		out = append(out, ev)
	}
	slices.SortFunc(out, func(a, b domain.Event) int {
		switch pa, pb := (ports.EventPosition{CreatedAt: a.CreatedAt, Seq: a.Seq}), (ports.EventPosition{CreatedAt: b.CreatedAt, Seq: b.Seq}); {
		case pa.Before(pb):
			return -1
		case pb.Before(pa):
			return 1
		}
		return 0
	})
	return out[:min(len(out), f.Limit)], nil
}

// GetEvent returns user's event at p; domain.ErrNotFound.
func (m *ReportStore) GetEvent(_ context.Context, user string, p ports.EventPosition) (domain.Event, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, e := range m.events {
		if e.seq == p.Seq && e.createdAt.Equal(p.CreatedAt) {
			if ev := m.eventOf(e); ev.PartnerUser == user {
				return ev, nil
			}
		}
	}
	return domain.Event{}, fmt.Errorf("event %d: %w", p.Seq, domain.ErrNotFound)
}

// Events returns every event, oldest first, whoever's.
func (m *ReportStore) Events() []domain.Event {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]domain.Event, len(m.events))
	for i, e := range m.events {
		out[i] = m.eventOf(e)
	}
	return out
}

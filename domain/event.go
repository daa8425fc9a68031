package domain

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// EventType is what an event says happened to a report (contract §11).
type EventType string

// The event types: a report entered a state.
const (
	EventReceived EventType = "report.received"
	EventAccepted EventType = "report.accepted"
	EventRejected EventType = "report.rejected"
)

// EventTypes lists every event type.
var EventTypes = []EventType{EventReceived, EventAccepted, EventRejected}

// EventTypeNames is EventTypes as words, for messages.
func EventTypeNames() string {
	names := make([]string, len(EventTypes))
	for i, t := range EventTypes {
		names[i] = string(t)
	}
	return strings.Join(names, ", ")
}

// ParseEventType reads an event type's word; false for anything else.
func ParseEventType(s string) (EventType, bool) {
	t := EventType(s)
	return t, slices.Contains(EventTypes, t)
}

// EventOf is the event of a report entering status.
func EventOf(status ReportStatus) EventType {
	switch status {
	case StatusAccepted:
		return EventAccepted
	case StatusRejected:
		return EventRejected
	}
	return EventReceived
}

// Status is the state an event of type t reports.
func (t EventType) Status() ReportStatus {
	switch t {
	case EventAccepted:
		return StatusAccepted
	case EventRejected:
		return StatusRejected
	}
	return StatusReceived
}

// Event is one state a report entered, written in the same transaction
// as the state itself. Receipt is the report's receipt at that moment:
// for report.received the status received and no decision, for the
// others the decision (final, so the receipt does not change after).
type Event struct {
	Seq         int64 // the store's row id; with CreatedAt it makes the public id
	Type        EventType
	CreatedAt   time.Time // UTC: the report's receipt time, or its decision's
	PartnerUser string
	Receipt     StoredReceipt
}

// ID is the event's public id (EventID).
func (e Event) ID() string { return EventID(e.CreatedAt, e.Seq) }

// eventIDPrefix starts every public event id.
const eventIDPrefix = "evt_"

// EventID is an event's public id: "evt_", then 16 lower-case hex digits
// of its creation time in Unix nanoseconds and 16 of its row id. Ids then
// sort, as text, in (created_at, row id) order: the order of the event
// list, which increases with time across replicas and database nodes (a
// Galera cluster interleaves auto-increment values, so row ids alone do
// not).
func EventID(createdAt time.Time, seq int64) string {
	b := make([]byte, 0, len(eventIDPrefix)+32)
	b = append(b, eventIDPrefix...)
	b = appendHex16(b, uint64(createdAt.UnixNano()))
	b = appendHex16(b, uint64(seq))
	return string(b)
}

func appendHex16(b []byte, v uint64) []byte {
	s := strconv.FormatUint(v, 16)
	for range 16 - len(s) {
		b = append(b, '0')
	}
	return append(b, s...)
}

// ParseEventID reads a public event id back into its creation time and
// row id; false for anything EventID does not make (so an edited id is
// not read as a neighbour).
func ParseEventID(id string) (time.Time, int64, bool) {
	hex, ok := strings.CutPrefix(id, eventIDPrefix)
	if !ok || len(hex) != 32 {
		return time.Time{}, 0, false
	}
	ns, err1 := strconv.ParseUint(hex[:16], 16, 63)
	seq, err2 := strconv.ParseUint(hex[16:], 16, 63)
	if err1 != nil || err2 != nil || seq == 0 {
		return time.Time{}, 0, false
	}
	at := time.Unix(0, int64(ns)).UTC()
	if EventID(at, int64(seq)) != id {
		return time.Time{}, 0, false
	}
	return at, int64(seq), true
}

// ReceiptAt is the receipt a report had when it entered t's state, from
// its receipt now: for report.received the state received and no
// decision; for a decision's event the receipt as it is, since a decision
// is final (a hand edit of the table is not a decision and makes no
// event).
func (t EventType) ReceiptAt(now StoredReceipt) StoredReceipt {
	if t == EventReceived {
		now.Status, now.Decision = StatusReceived, Decision{}
		return now
	}
	now.Status = t.Status()
	now.Decision.Status = t.Status()
	return now
}

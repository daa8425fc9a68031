package domain

import "time"

// StagedReport is a report with the metadata the staging table keeps.
type StagedReport struct {
	Report         *Report
	ReceivedAt     time.Time
	PartnerUser    string
	PartnerNIT     string
	FileName       string
	FileSize       int64
	FileSHA256     string // hex
	RequestID      string
	IdempotencyKey string // as sent in the header, "" when none
	PayloadSHA256  string // hex SHA-256 of the canonical report (Catalogue.Identity)
	// EventAt dates its report.received event; zero: ReceivedAt. It is
	// later than ReceivedAt when the report waited long before it went to
	// the store (ports.ReportsOptions.EventSlack): an event is dated near
	// its commit, so that GET /v1/events' list delay covers the rest.
	EventAt time.Time
}

// EventTime is when r's report.received event is dated: EventAt, or
// ReceivedAt when EventAt is zero.
func (r StagedReport) EventTime() time.Time {
	if r.EventAt.IsZero() {
		return r.ReceivedAt
	}
	return r.EventAt
}

// LateEventTime is given, moved on by how much longer than slack passed
// between enter and now (whole milliseconds): an event dated at given
// whose write waited that long is dated as if it had waited slack. A
// slack of 0 or less moves nothing.
func LateEventTime(given, enter, now time.Time, slack time.Duration) time.Time {
	if slack <= 0 {
		return given
	}
	if late := now.Sub(enter) - slack; late >= time.Millisecond {
		return given.Add(late.Truncate(time.Millisecond))
	}
	return given
}

// KeyState is the state of an idempotency record.
type KeyState string

// KeyDone is the state of every idempotency record this release writes
// (KeyPending, in compat100.go, is 1.0.0's).
const KeyDone KeyState = "done"

// IdempotencyRecord remembers a submission for a partner user, so that a
// retry gets the first answer instead of storing the report twice.
type IdempotencyRecord struct {
	User          string
	KeyHash       string // hex SHA-256 of the scoped key (see ports)
	PayloadSHA256 string // the report's identity, to tell a replay from a reused key
	State         KeyState
	Nonce         string // identifies one record, so only its writer completes or removes it
	ReportID      int64
	FileName      string
	CreatedAt     time.Time
	ExpiresAt     time.Time
}

// Receipt is what a stored report answers. A replay (Replayed) carries
// only ReportID and FileName, from the first submission's record; the
// stored row has the rest.
type Receipt struct {
	// StoredReceipt is the report's receipt as stored, the one shape
	// every surface shows: as this submission stored it (received), or,
	// on a replay, as its row holds it now (its state and decision
	// included).
	StoredReceipt
	FileSize int64 // bytes written by this submission (0 on a replay)
	Replayed bool  // true when this is the first answer again
}

// FileRow is a staging row that names a file (for the crash sweep).
type FileRow struct {
	ID         int64
	FileName   string
	ReceivedAt time.Time
}

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

package ports

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Sweep is the use case "after a crash, nothing half-done is left" (the
// sweep: serve runs it at start and every uploads.sweep_interval, the
// command reconcile on demand): it removes upload leftovers (temporary
// files), moves published files that no row names into quarantine,
// deletes quarantined files past their retention and the files of reports
// the retention purge deleted (a purge stopped between its rows and their
// files leaves them), release 1.0.0's pending
// records (compat100.go) and expired idempotency records, and reports rows
// whose file is missing (those it cannot mend).
//
// Invariants: the sweep never deletes a partner's file that is not in
// quarantine, unless the store records that the retention purge deleted
// its report: a published file without a row may be one whose row was
// lost (a database restored from an older backup), so it is kept for
// QuarantineRetention, and reconcile can move it back once its row is
// there again. Nothing younger than the stale bound is touched: a report
// still in flight, on this replica or another, may own it. A published
// file leaves its place only once the store has recorded its tombstone,
// past which no report can reserve the file: a report whose COMMIT
// reaches the database late either landed first (the file stays) or fails
// (no row names the file). One thing the sweep cannot do (a file it
// cannot move, a statement that fails) is recorded as a Failure and the
// run goes on with the rest.
type Sweep struct {
	store   SweepStore
	uploads UploadInventory
	clock   Clock
	o       SweepOptions
}

// SweepOptions bound a sweep.
type SweepOptions struct {
	// Stale is the age below which nothing is touched (above 0): longer
	// than any report can take.
	Stale time.Duration
	// TombstoneTTL is how long a tombstone is kept (idempotency.ttl; 0:
	// for good): far longer than a batch can run, since a batch ends once
	// the time of every report in it is up.
	TombstoneTTL time.Duration
	// QuarantineRetention is how long a quarantined file is kept before
	// the sweep deletes it (above 0).
	QuarantineRetention time.Duration
	// Batch is the names looked up, records deleted and rows read per
	// statement (above 0).
	Batch int
}

// NewSweep returns the sweep of store's rows and uploads' files.
func NewSweep(store SweepStore, uploads UploadInventory, clock Clock, o SweepOptions) (*Sweep, error) {
	switch {
	case store == nil || uploads == nil || clock == nil:
		return nil, errors.New("ports: NewSweep needs a store, an upload inventory and a clock")
	case o.Stale <= 0 || o.Batch <= 0 || o.TombstoneTTL < 0 || o.QuarantineRetention <= 0:
		return nil, fmt.Errorf("ports: NewSweep: stale bound %s, quarantine retention %s and batch %d must be above 0, tombstone TTL %s not below",
			o.Stale, o.QuarantineRetention, o.Batch, o.TombstoneTTL)
	}
	return &Sweep{store: store, uploads: uploads, clock: clock, o: o}, nil
}

// RowCheck says which rows a run checks for their file.
type RowCheck int

// Row checks.
const (
	// NewRows checks each stored row's file once, once the row is older
	// than the stale bound, however late its commit landed (serve's
	// sweep). It records what was checked, so it runs with apply only:
	// Run refuses a dry run of it.
	NewRows RowCheck = iota
	// EveryRow checks every row that names a file (reconcile).
	EveryRow
)

// Finding kinds.
const (
	FoundLeftover    = "leftover"           // a temporary file or unfinished upload
	FoundOrphanFile  = "orphan_file"        // a published file no row names: moved to quarantine
	FoundExpiredFile = "quarantine_expired" // a quarantined file past QuarantineRetention: deleted
	FoundPurgedFile  = "purged_file"        // a file of a report the retention purge deleted: deleted
	FoundExpiredKey  = "expired_key"        // an idempotency record past its TTL
	FoundTombstone   = "old_tombstone"      // a removed file's tombstone past TombstoneTTL
	FoundMissingFile = "missing_file"       // a row whose file is not there (reported only)
)

// FindingKinds lists the kinds, in the order a report shows them. They
// also name the failures: a failure has the kind of the work it stopped.
var FindingKinds = []string{FoundLeftover, FoundOrphanFile, FoundExpiredFile, FoundPurgedFile, FoundPendingRecord, FoundExpiredKey, FoundTombstone, FoundMissingFile}

// maxListed bounds the findings and failures a run keeps by name; the
// counts are whole.
const maxListed = 1000

// Finding is one thing the sweep found.
type Finding struct {
	Kind   string
	Name   string
	Reason string
}

// Failure is one thing the sweep could not do: Name is the file, or ""
// when a whole step failed (a listing, a statement).
type Failure struct {
	Kind string
	Name string
	Err  error
}

// SweepReport is what one run found and did.
type SweepReport struct {
	Findings []Finding        // the first maxListed, in the order found
	Counts   map[string]int64 // by kind
	Failures []Failure        // the first maxListed, in the order met
	Failed   map[string]int64 // failures by kind
	// Quarantined is the number of files in quarantine when the run
	// ended (-1 when they could not be listed).
	Quarantined int64
	Applied     bool // changes were made (not a dry run)
}

// ErrSweepIncomplete is Run's error when something could not be done;
// the report's Failures say what.
var ErrSweepIncomplete = errors.New("the sweep could not do everything")

func (r *SweepReport) add(kind, name, reason string) {
	r.Counts[kind]++
	if len(r.Findings) < maxListed {
		r.Findings = append(r.Findings, Finding{Kind: kind, Name: name, Reason: reason})
	}
}

func (r *SweepReport) fail(kind, name string, err error) {
	r.Failed[kind]++
	if len(r.Failures) < maxListed {
		r.Failures = append(r.Failures, Failure{Kind: kind, Name: name, Err: err})
	}
}

// FailureCount is the number of failures of the run.
func (r *SweepReport) FailureCount() int64 {
	var n int64
	for _, c := range r.Failed {
		n += c
	}
	return n
}

// Run looks for what a crash can leave and, with apply, mends it; check
// says which rows are checked for their file. Every step runs whatever
// the one before met; the error is ErrSweepIncomplete (wrapped, with the
// first failure) when anything failed, or the context's error.
func (r *Sweep) Run(ctx context.Context, apply bool, check RowCheck) (SweepReport, error) {
	rep := SweepReport{Counts: map[string]int64{}, Failed: map[string]int64{}, Applied: apply}
	if check == NewRows && !apply {
		return rep, errors.New("ports: a dry run cannot check new rows (NewRows records what it checked); use EveryRow")
	}
	now := r.clock.Now().UTC()
	cutoff := now.Add(-r.o.Stale)
	r.files(ctx, &rep, cutoff, apply)
	r.quarantine(ctx, &rep, now, apply)
	r.keys(ctx, &rep, cutoff, now, apply)
	if check == NewRows {
		r.newRows(ctx, &rep, cutoff)
	} else {
		r.everyRow(ctx, &rep, cutoff)
	}
	if err := ctx.Err(); err != nil {
		return rep, err
	}
	if len(rep.Failures) > 0 {
		f := rep.Failures[0]
		return rep, fmt.Errorf("%w: %d failures; the first (%s %s): %w", ErrSweepIncomplete, rep.FailureCount(), f.Kind, f.Name, f.Err)
	}
	return rep, nil
}

// keys deletes pending records older than cutoff (compat100.go), records
// past their TTL and tombstones past TombstoneTTL, in bounded batches. A
// failed statement ends its own kind's purge, not the other's.
func (r *Sweep) keys(ctx context.Context, rep *SweepReport, cutoff, now time.Time, apply bool) {
	for {
		pending, expired, err := r.store.PurgeKeys(ctx, cutoff, now, r.o.Batch, apply)
		if err != nil {
			rep.fail(FoundExpiredKey, "", fmt.Errorf("purge idempotency records: %w", err))
			break
		}
		rep.Counts[FoundPendingRecord] += pending
		rep.Counts[FoundExpiredKey] += expired
		if !apply || pending+expired < int64(r.o.Batch) {
			break
		}
	}
	if r.o.TombstoneTTL <= 0 {
		return // kept for good
	}
	for {
		n, err := r.store.PurgeTombstones(ctx, now.Add(-r.o.TombstoneTTL), r.o.Batch, apply)
		if err != nil {
			rep.fail(FoundTombstone, "", fmt.Errorf("purge tombstones: %w", err))
			return
		}
		rep.Counts[FoundTombstone] += n
		if !apply || n < int64(r.o.Batch) {
			return
		}
	}
}

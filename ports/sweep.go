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
// files, unfinished uploads), published files that no row names, pending
// claims and expired idempotency records, and reports rows whose file is
// missing (those it cannot mend). Nothing younger than the stale bound is
// touched: a report still in flight, on this replica or another, may own
// it. A published file is removed only once the store has recorded its
// tombstone, which no report can claim past: a report whose COMMIT
// reaches the database late either landed first (the file stays) or
// fails (no row names the file).
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
	// Batch is the names looked up, records deleted and rows read per
	// statement (above 0).
	Batch int
}

// NewSweep returns the sweep of store's rows and uploads' files.
func NewSweep(store SweepStore, uploads UploadInventory, clock Clock, o SweepOptions) (*Sweep, error) {
	switch {
	case store == nil || uploads == nil || clock == nil:
		return nil, errors.New("ports: NewSweep needs a store, an upload inventory and a clock")
	case o.Stale <= 0 || o.Batch <= 0 || o.TombstoneTTL < 0:
		return nil, fmt.Errorf("ports: NewSweep: stale bound %s and batch %d must be above 0, tombstone TTL %s not below", o.Stale, o.Batch, o.TombstoneTTL)
	}
	return &Sweep{store: store, uploads: uploads, clock: clock, o: o}, nil
}

// RowCheck says which rows a run checks for their file.
type RowCheck int

// Row checks.
const (
	// NewRows checks each stored row's file once, once the row is older
	// than the stale bound, however late its commit landed (serve's sweep). It needs
	// apply, which records what was checked; a dry run checks every row.
	NewRows RowCheck = iota
	// EveryRow checks every row that names a file (reconcile).
	EveryRow
)

// Finding kinds.
const (
	FoundLeftover     = "leftover"      // a temporary file or unfinished upload
	FoundOrphanFile   = "orphan_file"   // a published file no row names
	FoundPendingClaim = "pending_claim" // a claim whose request died
	FoundExpiredKey   = "expired_key"   // an idempotency record past its TTL
	FoundTombstone    = "old_tombstone" // a removed file's tombstone past TombstoneTTL
	FoundMissingFile  = "missing_file"  // a row whose file is not there (reported only)
)

// FindingKinds lists the kinds, in the order a report shows them.
var FindingKinds = []string{FoundLeftover, FoundOrphanFile, FoundPendingClaim, FoundExpiredKey, FoundTombstone, FoundMissingFile}

// maxListed bounds the findings a run keeps by name; the counts are whole.
const maxListed = 1000

// Finding is one thing the sweep found.
type Finding struct {
	Kind   string
	Name   string
	Reason string
}

// SweepReport is what one run found and did.
type SweepReport struct {
	Findings []Finding        // the first maxListed, in the order found
	Counts   map[string]int64 // by kind
	Applied  bool             // removals were made (not a dry run)
}

func (r *SweepReport) add(kind, name, reason string) {
	r.Counts[kind]++
	if len(r.Findings) < maxListed {
		r.Findings = append(r.Findings, Finding{Kind: kind, Name: name, Reason: reason})
	}
}

// Run looks for what a crash can leave and, with apply, removes it; check
// says which rows are checked for their file.
func (r *Sweep) Run(ctx context.Context, apply bool, check RowCheck) (SweepReport, error) {
	rep := SweepReport{Counts: map[string]int64{}, Applied: apply}
	now := r.clock.Now().UTC()
	cutoff := now.Add(-r.o.Stale)
	if err := r.files(ctx, &rep, cutoff, apply); err != nil {
		return rep, err
	}
	if err := r.keys(ctx, &rep, cutoff, now, apply); err != nil {
		return rep, err
	}
	if check == NewRows && apply {
		return rep, r.newRows(ctx, &rep, cutoff)
	}
	return rep, r.everyRow(ctx, &rep, cutoff)
}

// files removes leftovers and published files without a row, older than
// cutoff.
func (r *Sweep) files(ctx context.Context, rep *SweepReport, cutoff time.Time, apply bool) error {
	var batch []StoredObject
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		names := make([]string, len(batch))
		for i, o := range batch {
			names[i] = o.Name
		}
		named, err := r.store.NamedFiles(ctx, names)
		if err != nil {
			return fmt.Errorf("look up file names: %w", err)
		}
		for _, o := range batch {
			if named[o.Name] {
				continue
			}
			if apply {
				gone, err := r.store.TombstoneFile(ctx, o.Name)
				if err != nil {
					return fmt.Errorf("decide orphan file: %w", err)
				}
				if !gone {
					continue // a report's row has claimed it: its COMMIT landed late
				}
				if err := r.uploads.Remove(ctx, o.Name); err != nil {
					return fmt.Errorf("remove orphan file: %w", err)
				}
			}
			rep.add(FoundOrphanFile, o.Name, "no staging row names it; written "+o.ModTime.UTC().Format(time.RFC3339))
		}
		batch = batch[:0]
		return nil
	}
	err := r.uploads.Walk(ctx, func(o StoredObject) error {
		if !o.ModTime.Before(cutoff) {
			return nil // may belong to a report still in flight
		}
		if o.Temp {
			rep.add(FoundLeftover, o.Name, "an unfinished write; written "+o.ModTime.UTC().Format(time.RFC3339))
			if apply {
				return r.uploads.RemoveLeftover(ctx, o)
			}
			return nil
		}
		if batch = append(batch, o); len(batch) >= r.o.Batch {
			return flush()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("walk uploads: %w", err)
	}
	return flush()
}

// keys deletes pending claims older than cutoff, records past their TTL
// and tombstones past TombstoneTTL, in bounded batches.
func (r *Sweep) keys(ctx context.Context, rep *SweepReport, cutoff, now time.Time, apply bool) error {
	for {
		pending, expired, err := r.store.PurgeKeys(ctx, cutoff, now, r.o.Batch, apply)
		if err != nil {
			return fmt.Errorf("purge idempotency records: %w", err)
		}
		rep.Counts[FoundPendingClaim] += pending
		rep.Counts[FoundExpiredKey] += expired
		if !apply || pending+expired < int64(r.o.Batch) {
			break
		}
	}
	if r.o.TombstoneTTL <= 0 {
		return nil // kept for good
	}
	for {
		n, err := r.store.PurgeTombstones(ctx, now.Add(-r.o.TombstoneTTL), r.o.Batch, apply)
		if err != nil {
			return fmt.Errorf("purge tombstones: %w", err)
		}
		rep.Counts[FoundTombstone] += n
		if !apply || n < int64(r.o.Batch) {
			return nil
		}
	}
}

// newRows checks the files of the rows stored since the last run, each
// once: the claims not yet checked, older than cutoff. A row whose commit
// landed late is among them at the next run. A file that is missing is
// reported; nothing can mend it, so an operator must look.
func (r *Sweep) newRows(ctx context.Context, rep *SweepReport, cutoff time.Time) error {
	for {
		claims, err := r.store.UncheckedClaims(ctx, cutoff, r.o.Batch)
		if err != nil {
			return fmt.Errorf("read rows to check: %w", err)
		}
		names := make([]string, len(claims))
		for i, c := range claims {
			if err := r.checkFile(ctx, rep, c.ID, c.FileName); err != nil {
				return err
			}
			names[i] = c.FileName
		}
		if err := r.store.MarkChecked(ctx, names); err != nil {
			return fmt.Errorf("record checked rows: %w", err)
		}
		if len(claims) < r.o.Batch {
			return nil
		}
	}
}

// everyRow checks the file of every row older than cutoff.
func (r *Sweep) everyRow(ctx context.Context, rep *SweepReport, cutoff time.Time) error {
	for after := int64(0); ; {
		rows, err := r.store.FileRows(ctx, after, r.o.Batch)
		if err != nil {
			return fmt.Errorf("read rows with files: %w", err)
		}
		for _, row := range rows {
			after = row.ID
			if !row.ReceivedAt.Before(cutoff) {
				continue
			}
			if err := r.checkFile(ctx, rep, row.ID, row.FileName); err != nil {
				return err
			}
		}
		if len(rows) < r.o.Batch {
			return nil
		}
	}
}

func (r *Sweep) checkFile(ctx context.Context, rep *SweepReport, id int64, name string) error {
	ok, err := r.uploads.Exists(ctx, name)
	if err != nil {
		return fmt.Errorf("look for %s: %w", name, err)
	}
	if !ok {
		rep.add(FoundMissingFile, name, fmt.Sprintf("row %d names it; the file is not there", id))
	}
	return nil
}

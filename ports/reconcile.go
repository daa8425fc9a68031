package ports

import (
	"context"
	"fmt"
	"time"
)

// Reconciler is the use case "after a crash, nothing half-done is left":
// it removes upload leftovers (temporary files, unfinished uploads),
// published files that no row names, pending claims and expired
// idempotency records, and reports rows whose file is missing (those it
// cannot mend). Nothing younger than Stale is touched: a report still in
// flight, on this replica or another, may own it.
type Reconciler struct {
	Store   ReconcileStore
	Uploads UploadStore
	Files   UploadInventory
	Clock   Clock
	Stale   time.Duration
	Batch   int // names looked up, records deleted, rows read per statement
}

// Finding kinds.
const (
	FoundLeftover     = "leftover"      // a temporary file or unfinished upload
	FoundOrphanFile   = "orphan_file"   // a published file no row names
	FoundPendingClaim = "pending_claim" // a claim whose request died
	FoundExpiredKey   = "expired_key"   // an idempotency record past its TTL
	FoundMissingFile  = "missing_file"  // a row whose file is not there (reported only)
)

// maxListed bounds the findings a run keeps by name; the counts are whole.
const maxListed = 1000

// Finding is one thing the sweep found.
type Finding struct {
	Kind   string
	Name   string
	Reason string
}

// ReconcileReport is what one run found and did.
type ReconcileReport struct {
	Findings []Finding        // the first maxListed, in the order found
	Counts   map[string]int64 // by kind
	Applied  bool             // removals were made (not a dry run)
}

func (r *ReconcileReport) add(kind, name, reason string) {
	r.Counts[kind]++
	if len(r.Findings) < maxListed {
		r.Findings = append(r.Findings, Finding{Kind: kind, Name: name, Reason: reason})
	}
}

// Run looks for what a crash can leave and, with apply, removes it. Rows
// are checked for their file when received at or after rowsSince (the
// zero time: every row).
func (r *Reconciler) Run(ctx context.Context, apply bool, rowsSince time.Time) (ReconcileReport, error) {
	rep := ReconcileReport{Counts: map[string]int64{}, Applied: apply}
	now := r.Clock.Now().UTC()
	cutoff := now.Add(-r.Stale)
	if err := r.files(ctx, &rep, cutoff, apply); err != nil {
		return rep, err
	}
	if err := r.keys(ctx, &rep, cutoff, now, apply); err != nil {
		return rep, err
	}
	return rep, r.rows(ctx, &rep, rowsSince, cutoff)
}

// files removes leftovers and published files without a row, older than
// cutoff.
func (r *Reconciler) files(ctx context.Context, rep *ReconcileReport, cutoff time.Time, apply bool) error {
	var batch []StoredObject
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		names := make([]string, len(batch))
		for i, o := range batch {
			names[i] = o.Name
		}
		named, err := r.Store.NamedFiles(ctx, names)
		if err != nil {
			return fmt.Errorf("look up file names: %w", err)
		}
		for _, o := range batch {
			if named[o.Name] {
				continue
			}
			rep.add(FoundOrphanFile, o.Name, "no staging row names it; written "+o.ModTime.UTC().Format(time.RFC3339))
			if apply {
				if err := r.Uploads.Remove(ctx, o.Name); err != nil {
					return fmt.Errorf("remove orphan file: %w", err)
				}
			}
		}
		batch = batch[:0]
		return nil
	}
	err := r.Files.Walk(ctx, func(o StoredObject) error {
		if !o.ModTime.Before(cutoff) {
			return nil // may belong to a report still in flight
		}
		if o.Temp {
			rep.add(FoundLeftover, o.Name, "an unfinished write; written "+o.ModTime.UTC().Format(time.RFC3339))
			if apply {
				return r.Files.RemoveLeftover(ctx, o)
			}
			return nil
		}
		if batch = append(batch, o); len(batch) >= r.batch() {
			return flush()
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("walk uploads: %w", err)
	}
	return flush()
}

// keys deletes pending claims older than cutoff and records past their
// TTL, in bounded batches.
func (r *Reconciler) keys(ctx context.Context, rep *ReconcileReport, cutoff, now time.Time, apply bool) error {
	for {
		pending, expired, err := r.Store.PurgeKeys(ctx, cutoff, now, r.batch(), apply)
		if err != nil {
			return fmt.Errorf("purge idempotency records: %w", err)
		}
		rep.Counts[FoundPendingClaim] += pending
		rep.Counts[FoundExpiredKey] += expired
		if !apply || pending+expired < int64(r.batch()) {
			return nil
		}
	}
}

// rows reports rows received since whose file is gone; it mends nothing
// (the file cannot be made again), so an operator must look.
func (r *Reconciler) rows(ctx context.Context, rep *ReconcileReport, since, cutoff time.Time) error {
	for after := int64(0); ; {
		rows, err := r.Store.FileRows(ctx, after, since, r.batch())
		if err != nil {
			return fmt.Errorf("read rows with files: %w", err)
		}
		for _, row := range rows {
			after = row.ID
			if !row.ReceivedAt.Before(cutoff) {
				continue
			}
			ok, err := r.Files.Exists(ctx, row.FileName)
			if err != nil {
				return fmt.Errorf("look for %s: %w", row.FileName, err)
			}
			if !ok {
				rep.add(FoundMissingFile, row.FileName, fmt.Sprintf("row %d names it; the file is not there", row.ID))
			}
		}
		if len(rows) < r.batch() {
			return nil
		}
	}
}

func (r *Reconciler) batch() int {
	if r.Batch > 0 {
		return r.Batch
	}
	return 500
}

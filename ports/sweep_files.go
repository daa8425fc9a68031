package ports

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// files removes leftovers and moves published files without a row,
// older than cutoff, into quarantine. A file it cannot handle is a
// failure; the walk goes on.
func (r *Sweep) files(ctx context.Context, rep *SweepReport, cutoff time.Time, apply bool) {
	var batch []StoredObject
	flush := func() {
		defer func() { batch = batch[:0] }()
		if len(batch) == 0 {
			return
		}
		names := make([]string, len(batch))
		for i, o := range batch {
			names[i] = o.Name
		}
		named, err := r.store.NamedFiles(ctx, names)
		if err != nil {
			rep.fail(FoundOrphanFile, "", fmt.Errorf("look up %d file names: %w", len(names), err))
			return
		}
		var unnamed []StoredObject
		for _, o := range batch {
			if !named[o.Name] {
				unnamed = append(unnamed, o)
			}
		}
		purged, ok := r.purgedOf(ctx, rep, unnamed)
		if !ok {
			return // the next run decides them
		}
		for _, o := range unnamed {
			if purged[o.Name] {
				r.deletePurged(ctx, rep, o, false, apply)
			} else {
				r.orphan(ctx, rep, o, apply)
			}
		}
	}
	err := r.uploads.Walk(ctx, func(o StoredObject) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !o.ModTime.Before(cutoff) {
			return nil // may belong to a report still in flight
		}
		if o.Temp {
			if apply {
				if err := r.uploads.RemoveLeftover(ctx, o); err != nil {
					rep.fail(FoundLeftover, o.Name, err)
					return nil
				}
			}
			rep.add(FoundLeftover, o.Name, "an unfinished write; written "+o.ModTime.UTC().Format(time.RFC3339))
			return nil
		}
		if batch = append(batch, o); len(batch) >= r.o.Batch {
			flush()
		}
		return nil
	})
	if err != nil && ctx.Err() == nil {
		rep.fail(FoundOrphanFile, "", fmt.Errorf("walk uploads: %w", err))
	}
	flush()
}

// orphan moves one published file that no row names into quarantine,
// once its tombstone is committed.
func (r *Sweep) orphan(ctx context.Context, rep *SweepReport, o StoredObject, apply bool) {
	if apply {
		gone, err := r.store.TombstoneFile(ctx, o.Name)
		if err != nil {
			rep.fail(FoundOrphanFile, o.Name, fmt.Errorf("decide orphan file: %w", err))
			return
		}
		if !gone {
			return // a report's row has reserved it: its COMMIT landed late
		}
		if err := r.uploads.Quarantine(ctx, o.Name); err != nil {
			rep.fail(FoundOrphanFile, o.Name, fmt.Errorf("move to quarantine: %w", err))
			return
		}
	}
	rep.add(FoundOrphanFile, o.Name, "no staging row names it; written "+o.ModTime.UTC().Format(time.RFC3339)+"; kept in quarantine")
}

// quarantine deletes the quarantined files older than the retention and
// those of reports the retention purge deleted, and counts the rest.
func (r *Sweep) quarantine(ctx context.Context, rep *SweepReport, now time.Time, apply bool) {
	before := now.Add(-r.o.QuarantineRetention)
	var kept int64
	var young []StoredObject
	flush := func() {
		defer func() { young = young[:0] }()
		if len(young) == 0 {
			return
		}
		purged, ok := r.purgedOf(ctx, rep, young)
		for _, o := range young {
			if !ok || !purged[o.Name] || !r.deletePurged(ctx, rep, o, true, apply) {
				kept++
			}
		}
	}
	err := r.uploads.WalkQuarantine(ctx, func(o StoredObject) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		if !o.ModTime.Before(before) {
			if young = append(young, o); len(young) >= r.o.Batch {
				flush()
			}
			return nil
		}
		if apply {
			if err := r.uploads.RemoveQuarantined(ctx, o.Name); err != nil {
				kept++
				rep.fail(FoundExpiredFile, o.Name, err)
				return nil
			}
		} else {
			kept++ // a dry run deletes nothing
		}
		rep.add(FoundExpiredFile, o.Name, "quarantined "+o.ModTime.UTC().Format(time.RFC3339)+", past the retention of "+r.o.QuarantineRetention.String())
		return nil
	})
	flush()
	rep.Quarantined = kept
	if err != nil && ctx.Err() == nil {
		rep.Quarantined = -1
		rep.fail(FoundExpiredFile, "", fmt.Errorf("walk quarantine: %w", err))
	}
}

// newRows checks the files of the rows stored since the last run, each
// once: the reservations not yet checked, older than cutoff. A row whose commit
// landed late is among them at the next run. A file that is missing is
// reported; nothing can mend it, so an operator must look. A row whose
// check failed stays unchecked, for the next run.
func (r *Sweep) newRows(ctx context.Context, rep *SweepReport, cutoff time.Time) {
	failed := map[string]bool{}
	for ctx.Err() == nil {
		reserved, err := r.store.UncheckedReservations(ctx, cutoff, r.o.Batch+len(failed))
		if err != nil {
			rep.fail(FoundMissingFile, "", fmt.Errorf("read rows to check: %w", err))
			return
		}
		var names []string
		for _, c := range reserved {
			if failed[c.FileName] {
				continue // failed in this run already: the next run tries again
			}
			if err := r.checkFile(ctx, rep, c.ID, c.FileName); err != nil {
				failed[c.FileName] = true
				continue
			}
			names = append(names, c.FileName)
		}
		if len(names) == 0 || len(failed) > maxListed {
			return // nothing left but what failed, or too much failing: the next run tries again
		}
		if err := r.store.MarkChecked(ctx, names); err != nil {
			rep.fail(FoundMissingFile, "", fmt.Errorf("record checked rows: %w", err))
			return
		}
		if len(reserved) < r.o.Batch+len(failed) {
			return
		}
	}
}

// everyRow checks the file of every row older than cutoff.
func (r *Sweep) everyRow(ctx context.Context, rep *SweepReport, cutoff time.Time) {
	for after := int64(0); ctx.Err() == nil; {
		rows, err := r.store.FileRows(ctx, after, r.o.Batch)
		if err != nil {
			rep.fail(FoundMissingFile, "", fmt.Errorf("read rows with files after id %d: %w", after, err))
			return
		}
		for _, row := range rows {
			after = row.ID
			if row.ReceivedAt.Before(cutoff) {
				_ = r.checkFile(ctx, rep, row.ID, row.FileName)
			}
		}
		if len(rows) < r.o.Batch {
			return
		}
	}
}

// checkFile reports name missing, or records a failure (and returns it)
// when the upload store cannot say.
func (r *Sweep) checkFile(ctx context.Context, rep *SweepReport, id int64, name string) error {
	ok, err := r.uploads.Exists(ctx, name)
	if err != nil {
		if ctx.Err() == nil {
			rep.fail(FoundMissingFile, name, fmt.Errorf("look for the file of row %d: %w", id, err))
		}
		return errors.Join(err, ctx.Err())
	}
	if !ok {
		rep.add(FoundMissingFile, name, fmt.Sprintf("row %d names it; the file is not there", id))
	}
	return nil
}

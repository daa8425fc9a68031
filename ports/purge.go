package ports

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// PurgeStore is what the retention purge asks of the report store.
type PurgeStore interface {
	// ReportsAfter returns up to limit stored reports (with or without a
	// file) with ids above afterID, in id order.
	ReportsAfter(ctx context.Context, afterID int64, limit int) ([]domain.FileRow, error)
	// DeleteReports deletes the reports of rows, in one transaction, and
	// turns their files' reservations into tombstones that say the purge
	// took them (no report can name those files again; the sweep deletes a
	// file the purge did not get to: SweepStore.PurgedFiles), and says
	// how many reports it deleted.
	DeleteReports(ctx context.Context, rows []domain.FileRow) (int64, error)
}

// Purge is the use case "personal data is kept no longer than the
// retention" (reports purge): it deletes the reports received before a
// cutoff, row first, then the file (in place or in quarantine), so a
// crash between the two leaves a file no row names, never a row without
// its file. The store records, with the rows' deletion, that their files
// were purged: the sweep deletes such a file at its next run, instead of
// keeping it in quarantine as it keeps a file whose row may come back.
type Purge struct {
	store   PurgeStore
	uploads UploadInventory
	clock   Clock
	batch   int
	minAge  time.Duration
}

// NewPurge returns the purge of store's reports and uploads' files,
// batch rows per statement; it refuses a retention below minAge (the
// time a retry's answer names its report: idempotency.ttl).
func NewPurge(store PurgeStore, uploads UploadInventory, clock Clock, batch int, minAge time.Duration) (*Purge, error) {
	if store == nil || uploads == nil || clock == nil || batch <= 0 || minAge <= 0 {
		return nil, errors.New("ports: NewPurge needs a store, an upload inventory, a clock, a batch and a minimum age above 0")
	}
	return &Purge{store: store, uploads: uploads, clock: clock, batch: batch, minAge: minAge}, nil
}

// CheckRetention refuses a retention of reports below minAge
// (idempotency.ttl: a retry's answer names its report) as
// domain.ErrInvalidInput. The purge asks it before each run, and the
// configuration's check (retention.reports) before any.
func CheckRetention(retention, minAge time.Duration) error {
	if retention < minAge {
		return domain.NewError(domain.ErrInvalidInput, "retention_too_short",
			fmt.Sprintf("a retention of %s is below %s (idempotency.ttl: a retry's answer names its report)", retention, minAge))
	}
	return nil
}

// PurgeReport is what one purge found and did.
type PurgeReport struct {
	Before   time.Time // reports received before this were purged
	Reports  int64     // reports deleted (or, in a dry run, to delete)
	Files    int64     // their files deleted (or to delete)
	Failures []Failure // files that could not be deleted (the first maxListed)
	Failed   int64
}

// Run deletes, with apply, the reports received longer than olderThan
// ago and their files; without apply it only counts them. Reports are
// read in id order, and the run ends after the first batch that holds a
// report younger than the cutoff: ids grow with time (but for the
// seconds between replicas' commits), so the rest are younger, and a
// run reads the table only as far as the cutoff. An older report found
// past that point is purged by the next run; a younger one never is.
// A file that cannot be deleted is a Failure; the run goes on.
func (p *Purge) Run(ctx context.Context, olderThan time.Duration, apply bool) (PurgeReport, error) {
	if err := CheckRetention(olderThan, p.minAge); err != nil {
		return PurgeReport{}, err
	}
	rep := PurgeReport{Before: p.clock.Now().UTC().Add(-olderThan)}
	for after := int64(0); ; {
		rows, err := p.store.ReportsAfter(ctx, after, p.batch)
		if err != nil {
			return rep, fmt.Errorf("read reports after id %d: %w", after, err)
		}
		var old []domain.FileRow
		younger := false
		for _, r := range rows {
			after = r.ID
			if r.ReceivedAt.Before(rep.Before) {
				old = append(old, r)
			} else {
				younger = true
			}
		}
		if err := p.purge(ctx, &rep, old, apply); err != nil {
			return rep, err
		}
		if younger || len(rows) < p.batch {
			break
		}
	}
	if rep.Failed > 0 {
		f := rep.Failures[0]
		return rep, fmt.Errorf("%d files could not be deleted; the first (%s): %w", rep.Failed, f.Name, f.Err)
	}
	return rep, nil
}

func (p *Purge) purge(ctx context.Context, rep *PurgeReport, old []domain.FileRow, apply bool) error {
	if len(old) == 0 {
		return nil
	}
	if !apply {
		rep.Reports += int64(len(old))
		for _, r := range old {
			if r.FileName != "" {
				rep.Files++
			}
		}
		return nil
	}
	n, err := p.store.DeleteReports(ctx, old)
	if err != nil {
		return fmt.Errorf("delete %d reports: %w", len(old), err)
	}
	rep.Reports += n
	for _, r := range old {
		if r.FileName == "" {
			continue
		}
		err := errors.Join(p.uploads.Remove(ctx, r.FileName), p.uploads.RemoveQuarantined(ctx, r.FileName))
		if err != nil {
			rep.Failed++
			if len(rep.Failures) < maxListed {
				rep.Failures = append(rep.Failures, Failure{Kind: "purge", Name: r.FileName, Err: err})
			}
			continue
		}
		rep.Files++
	}
	return nil
}

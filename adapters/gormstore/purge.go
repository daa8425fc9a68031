package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.PurgeStore = (*Store)(nil)

// ReportsAfter returns up to limit stored reports with ids above afterID,
// in id order (on the primary key): the retention purge's pages.
func (s *Store) ReportsAfter(ctx context.Context, afterID int64, limit int) ([]domain.FileRow, error) {
	if limit <= 0 {
		return nil, nil
	}
	out, err := s.stagingPage(ctx, afterID, limit, false)
	if err != nil {
		return nil, fmt.Errorf("reports after id %d: %w", afterID, err)
	}
	return out, nil
}

// stagingPage returns up to limit staging rows with ids above afterID, in
// id order (on the primary key); with namingFile, only rows that name a
// file.
func (s *Store) stagingPage(ctx context.Context, afterID int64, limit int, namingFile bool) ([]domain.FileRow, error) {
	q := s.read.orm.WithContext(ctx).Table(StagingTable).Select("id, file_name, received_at AS row_time").
		Where("id > ?", afterID)
	if namingFile {
		q = q.Where("file_name IS NOT NULL")
	}
	return scanFileRows(q.Order("id").Limit(limit))
}

// scanFileRows reads the page q selects (id, file_name and row_time; the
// first two may be NULL) as file rows: the one scan of the purge's and
// reconcile's pages of staging rows and of the sweep's unchecked
// reservations.
func scanFileRows(q *gorm.DB) ([]domain.FileRow, error) {
	var rows []struct {
		ID       *int64
		FileName *string
		RowTime  time.Time
	}
	if err := q.Scan(&rows).Error; err != nil {
		return nil, err
	}
	out := make([]domain.FileRow, len(rows))
	for i, r := range rows {
		out[i] = domain.FileRow{ReceivedAt: r.RowTime.UTC()}
		if r.ID != nil {
			out[i].ID = *r.ID
		}
		if r.FileName != nil {
			out[i].FileName = *r.FileName
		}
	}
	return out, nil
}

// DeleteReports deletes the staging rows of rows and, in the same
// transaction, turns their files' reservations into the purge's
// tombstones (filePurged): no report can reserve those names again, and
// the sweep deletes a file the purge did not get to (PurgedFiles). Their idempotency records are left to the
// sweep: the purge takes only reports older than idempotency.ttl, whose
// records have expired (ports.Purge refuses a shorter retention).
func (s *Store) DeleteReports(ctx context.Context, rows []domain.FileRow) (int64, error) {
	if len(rows) == 0 {
		return 0, nil
	}
	ids := make([]int64, len(rows))
	var names []string
	for i, r := range rows {
		ids[i] = r.ID
		if r.FileName != "" {
			names = append(names, r.FileName)
		}
	}
	now := s.clock.Now().UTC()
	var deleted int64
	// Through inTx: on a Galera cluster another node's write to these
	// rows (a second purge, a decision) may win certification (1213);
	// run again, the purge finds what is left.
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		deleted, err = affected(ctx, tx, "DELETE FROM "+StagingTable+" WHERE id IN "+inList(len(ids)), int64Args(ids)...)
		if err != nil || len(names) == 0 {
			return err
		}
		_, err = tx.ExecContext(ctx, "UPDATE "+filesTable+" SET state = ?, created_at = ?, checked = 1 WHERE file_name IN "+inList(len(names))+" AND state = ?",
			append(append([]any{filePurged, now}, stringArgs(names)...), fileReserved)...)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("delete %d reports: %w", len(ids), err)
	}
	return deleted, nil
}

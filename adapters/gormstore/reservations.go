package gormstore

import (
	"context"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// A file's fate is decided by the database that decides its row. The batch
// that stores a report inserts a reservation of its file name
// (upload_files) in the row's transaction; the sweep removes a published
// file only after it has committed a tombstone under the same key. The key
// is unique, so one of them wins: a reservation not yet committed holds the
// key (MySQL's row lock, SQLite's one writer), the tombstone waits for it
// and fails once it has landed; a committed tombstone makes a later
// reservation fail, and with it that report's row. No clock decides it,
// however late a COMMIT arrives.

// filesTable keeps one entry per file name: a reservation or a tombstone.
// The table and its state values keep the names migration 3 released them
// under (upload_files, 'claimed'): released migrations are frozen text.
const filesTable = "upload_files"

// The states of an upload_files entry.
const (
	fileReserved  = "claimed"   // a committed row names the file (the released value)
	fileTombstone = "tombstone" // the sweep took the file: no row may reserve it
	filePurged    = "purged"    // the retention purge deleted the file's row: a tombstone whose file the sweep deletes
)

// TombstoneFile records that the sweep removes the file name, unless a
// report has reserved it. It returns true when the tombstone is committed
// (or was already): from then on no report can store a row naming the
// file. It returns false when a committed reservation names the file, or
// when a reservation still being written holds the key past the
// database's lock wait: the file stays. A reservation whose row has since
// been deleted by hand is turned into a tombstone (the retention purge
// tombstones its rows' reservations itself).
func (s *Store) TombstoneFile(ctx context.Context, name string) (bool, error) {
	now := s.clock.Now().UTC()
	db := s.write.orm.WithContext(ctx)
	err := db.Exec("INSERT INTO "+filesTable+" (file_name, state, created_at, checked) VALUES (?, ?, ?, 1)",
		name, fileTombstone, now).Error
	switch {
	case err == nil:
		return true, nil
	case isRetryable(err):
		return false, nil // a reservation is being written and has not settled: not ours to decide now
	case !isDuplicate(err):
		return false, fmt.Errorf("tombstone %s: %w", name, err)
	}
	var state string
	if err := db.Raw("SELECT state FROM "+filesTable+" WHERE file_name = ?", name).Scan(&state).Error; err != nil {
		return false, fmt.Errorf("tombstone %s: read its entry: %w", name, err)
	}
	if state != fileReserved {
		return true, nil // an earlier run's, which did not get to remove the file, or the purge's
	}
	// A committed reservation: its row was committed with it, so a row
	// still naming the file keeps it.
	var rows int64
	if err := db.Table(StagingTable).Where("file_name = ?", name).Count(&rows).Error; err != nil {
		return false, fmt.Errorf("tombstone %s: look for its row: %w", name, err)
	}
	if rows > 0 {
		return false, nil
	}
	n, err := s.execTx(ctx, "UPDATE "+filesTable+" SET state = ?, created_at = ?, checked = 1 WHERE file_name = ? AND state = ?",
		fileTombstone, now, name, fileReserved)
	if err != nil {
		return false, fmt.Errorf("tombstone %s: %w", name, err)
	}
	return n == 1, nil
}

// PurgedFiles returns which of names the retention purge took
// (DeleteReports): their entries' state is purged.
func (s *Store) PurgedFiles(ctx context.Context, names []string) (map[string]bool, error) {
	out := make(map[string]bool, len(names))
	if len(names) == 0 {
		return out, nil
	}
	var found []string
	if err := s.read.orm.WithContext(ctx).Table(filesTable).Where("file_name IN ? AND state = ?", names, filePurged).
		Pluck("file_name", &found).Error; err != nil {
		return nil, fmt.Errorf("purged files: %w", err)
	}
	for _, n := range found {
		out[n] = true
	}
	return out, nil
}

// UncheckedReservations returns up to limit reservations not yet checked
// for their file and created before before, oldest first (on
// ix_upload_files_checked). A reservation becomes visible when its row
// commits, however late, and stays unchecked until MarkChecked: so every
// stored row is checked once, whenever it landed.
func (s *Store) UncheckedReservations(ctx context.Context, before time.Time, limit int) ([]domain.FileRow, error) {
	if limit <= 0 {
		return nil, nil
	}
	q := s.read.orm.WithContext(ctx).Table(filesTable).Select("report_id AS id, file_name, created_at AS row_time").
		Where("checked = 0 AND created_at < ?", before.UTC()).Order("created_at, file_name").Limit(limit)
	out, err := scanFileRows(q)
	if err != nil {
		return nil, fmt.Errorf("unchecked reservations: %w", err)
	}
	return out, nil
}

// MarkChecked marks reservations as checked for their file (one
// statement; replicas' sweeps on two Galera nodes may mark the same ones
// at once: execTx).
func (s *Store) MarkChecked(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	if _, err := s.execTx(ctx, "UPDATE "+filesTable+" SET checked = 1 WHERE file_name IN "+inList(len(names)), stringArgs(names)...); err != nil {
		return fmt.Errorf("mark reservations checked: %w", err)
	}
	return nil
}

// PurgeTombstones deletes at most limit tombstones (the sweep's and the
// purge's) created before before (on ix_upload_files_state); without
// apply it counts them all.
func (s *Store) PurgeTombstones(ctx context.Context, before time.Time, limit int, apply bool) (int64, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("purge tombstones: limit %d, want > 0", limit)
	}
	gone := []string{fileTombstone, filePurged}
	q := s.write.orm.WithContext(ctx).Table(filesTable).Where("state IN ? AND created_at < ?", gone, before.UTC())
	if !apply {
		var n int64
		if err := q.Count(&n).Error; err != nil {
			return 0, fmt.Errorf("count tombstones: %w", err)
		}
		return n, nil
	}
	var names []string
	if err := q.Limit(limit).Pluck("file_name", &names).Error; err != nil {
		return 0, fmt.Errorf("find old tombstones: %w", err)
	}
	if len(names) == 0 {
		return 0, nil
	}
	// Two replicas' sweeps on two Galera nodes may delete the same ones
	// at once: execTx.
	n, err := s.execTx(ctx, "DELETE FROM "+filesTable+" WHERE state IN (?, ?) AND file_name IN "+inList(len(names)),
		append([]any{gone[0], gone[1]}, stringArgs(names)...)...)
	if err != nil {
		return 0, fmt.Errorf("delete old tombstones: %w", err)
	}
	return n, nil
}

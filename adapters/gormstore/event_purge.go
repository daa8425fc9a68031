package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"
)

// PurgeEvents deletes, with apply, the events created before before
// among the first limit events in id order, with their deliveries and
// their attempts, in one transaction, and says how many events it
// deleted; without apply it counts the events created before before,
// page by page in id order. Ids grow with time (but for the moments
// between replicas' commits, and the interleaving of a Galera cluster's
// nodes), so the old events are at the start of the primary key: a run
// reads a page from the start, deletes the old ones and stops at a page
// with none (an old event past a younger one is purged by a later run).
// The attempts are found through their endpoints (the deliveries of
// those events name them) on the attempts' (endpoint_id, id) index, at
// most domain.MaxAttemptsListed each.
func (s *Store) PurgeEvents(ctx context.Context, before time.Time, limit int, apply bool) (int64, error) {
	if limit <= 0 {
		return 0, fmt.Errorf("purge events: limit %d, want > 0", limit)
	}
	if !apply {
		return s.countOldEvents(ctx, before, limit)
	}
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n = 0 // what a run lost to a conflict counted is not
		ids, _, err := oldEvents(ctx, tx, 0, before, limit)
		if err != nil || len(ids) == 0 {
			return err
		}
		in, idArgs := inList(len(ids)), int64Args(ids)
		endpoints, err := queryTx(ctx, tx, "SELECT DISTINCT endpoint_id FROM "+deliveriesTable+" WHERE event_id IN "+in, idArgs,
			func(rows *sql.Rows) (any, error) {
				var id int64
				return id, rows.Scan(&id)
			})
		if err != nil {
			return err
		}
		if len(endpoints) > 0 {
			if _, err := tx.ExecContext(ctx, "DELETE FROM "+attemptsTable+" WHERE endpoint_id IN "+inList(len(endpoints))+
				" AND event_id IN "+in, append(endpoints, idArgs...)...); err != nil {
				return err
			}
		}
		if _, err := tx.ExecContext(ctx, "DELETE FROM "+deliveriesTable+" WHERE event_id IN "+in, idArgs...); err != nil {
			return err
		}
		n, err = affected(ctx, tx, "DELETE FROM "+eventsTable+" WHERE id IN "+in, idArgs...)
		return err
	})
	if err != nil {
		return 0, fmt.Errorf("purge events before %s: %w", before.UTC().Format(time.RFC3339), err)
	}
	return n, nil
}

// countOldEvents counts the events created before before, a page of
// limit at a time in id order, up to the first page that holds none.
func (s *Store) countOldEvents(ctx context.Context, before time.Time, limit int) (int64, error) {
	var total int64
	for after := int64(0); ; {
		ids, last, err := oldEvents(ctx, s.read.sql, after, before, limit)
		if err != nil {
			return total, fmt.Errorf("count events before %s: %w", before.UTC().Format(time.RFC3339), err)
		}
		total += int64(len(ids))
		if len(ids) == 0 || last == after {
			return total, nil
		}
		after = last
	}
}

// oldEvents reads the page of limit events after id after, in id order,
// and returns the ids of those created before before and the last id of
// the page (after when the page is empty).
func oldEvents(ctx context.Context, db execer, after int64, before time.Time, limit int) ([]int64, int64, error) {
	type row struct {
		id      int64
		created any
	}
	page, err := queryTx(ctx, db, "SELECT id, created_at FROM "+eventsTable+" WHERE id > ? ORDER BY id LIMIT ?",
		[]any{after, limit}, func(rows *sql.Rows) (row, error) {
			var r row
			return r, rows.Scan(&r.id, &r.created)
		})
	if err != nil {
		return nil, after, err
	}
	var ids []int64
	for _, r := range page {
		at, err := exactTime(r.created)
		if err != nil {
			return nil, after, fmt.Errorf("event %d: created_at: %w", r.id, err)
		}
		if at.Before(before) {
			ids = append(ids, r.id)
		}
		after = r.id
	}
	return ids, after, nil
}

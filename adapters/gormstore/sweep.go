package gormstore

import (
	"context"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/domain"
)

// NamedFiles returns which of names a staging row names (one indexed
// lookup per name, on ix_staging_file_name).
func (s *Store) NamedFiles(ctx context.Context, names []string) (map[string]bool, error) {
	out := make(map[string]bool, len(names))
	if len(names) == 0 {
		return out, nil
	}
	var found []string
	if err := s.read.orm.WithContext(ctx).Table(StagingTable).Where("file_name IN ?", names).Distinct().Pluck("file_name", &found).Error; err != nil {
		return nil, fmt.Errorf("named files: %w", err)
	}
	for _, n := range found {
		out[n] = true
	}
	return out, nil
}

// FileRows returns up to limit rows that name a file, with ids above
// afterID, in id order (reconcile's check of every row).
func (s *Store) FileRows(ctx context.Context, afterID int64, limit int) ([]domain.FileRow, error) {
	if limit <= 0 {
		return nil, nil
	}
	out, err := s.stagingPage(ctx, afterID, limit, true)
	if err != nil {
		return nil, fmt.Errorf("file rows: %w", err)
	}
	return out, nil
}

// PurgeKeys deletes at most limit records: pending records (written only
// by version 1.0.0: ports/compat100.go) created before pendingBefore
// (found on ix_idempotency_state_created), then records expired before
// expiredBefore (on ix_idempotency_expires). Each DELETE names at most
// limit ids, so no statement holds many locks or runs long. Without apply
// it counts them all.
func (s *Store) PurgeKeys(ctx context.Context, pendingBefore, expiredBefore time.Time, limit int, apply bool) (int64, int64, error) {
	if limit <= 0 {
		return 0, 0, fmt.Errorf("purge keys: limit %d, want > 0", limit)
	}
	pendingQ := func() *gorm.DB {
		return s.write.orm.WithContext(ctx).Model(&idempotencyRow{}).Where("state = ? AND created_at < ?", string(domain.KeyPending), pendingBefore.UTC())
	}
	expiredQ := func() *gorm.DB {
		return s.write.orm.WithContext(ctx).Model(&idempotencyRow{}).Where("state = ? AND expires_at < ?", string(domain.KeyDone), expiredBefore.UTC())
	}
	if !apply {
		var p, e int64
		if err := pendingQ().Count(&p).Error; err != nil {
			return 0, 0, fmt.Errorf("count pending keys: %w", err)
		}
		if err := expiredQ().Count(&e).Error; err != nil {
			return 0, 0, fmt.Errorf("count expired keys: %w", err)
		}
		return p, e, nil
	}
	del := func(q *gorm.DB, n int) (int64, error) {
		if n <= 0 {
			return 0, nil
		}
		var ids []int64
		if err := q.Limit(n).Pluck("id", &ids).Error; err != nil || len(ids) == 0 {
			return 0, err
		}
		// Two replicas' sweeps on two Galera nodes may delete the same
		// records at once: execTx.
		return s.execTx(ctx, "DELETE FROM idempotency_keys WHERE id IN "+inList(len(ids)), int64Args(ids)...)
	}
	p, err := del(pendingQ(), limit)
	if err != nil {
		return 0, 0, fmt.Errorf("delete pending keys: %w", err)
	}
	e, err := del(expiredQ(), limit-int(p))
	if err != nil {
		return p, 0, fmt.Errorf("delete expired keys: %w", err)
	}
	return p, e, nil
}

// Compat100Until returns when the last idempotency record written before
// migration 2 — by version 1.0.0, which keyed reports by their raw body's
// hash — expires; the zero time when there is none (a new install, or the
// old records are gone). Until then the service also looks reports up the
// old way (ports.Reports.SetCompat100Until).
func (s *Store) Compat100Until(ctx context.Context) (time.Time, error) {
	var m schemaMigration
	err := s.read.orm.WithContext(ctx).Where("version = ?", 2).Take(&m).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("read schema_migrations: %w", err)
	}
	var row idempotencyRow
	err = s.read.orm.WithContext(ctx).Where("created_at < ?", m.AppliedAt.UTC()).Order("expires_at DESC").Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return time.Time{}, nil
	}
	if err != nil {
		return time.Time{}, fmt.Errorf("find records of version 1.0.0: %w", err)
	}
	return row.ExpiresAt.UTC(), nil
}

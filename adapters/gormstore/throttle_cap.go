package gormstore

import (
	"context"
	"fmt"

	"gorm.io/gorm"
)

// maxEvictBatch bounds the key rows one eviction transaction removes.
const maxEvictBatch = 1000

// afterReserve keeps the key rows of kh's kind near MaxKeys (contract §7,
// "Bounded memory", as the memory throttle's least-recently-used bound):
// every MaxKeys/8 slots taken of a kind, a replica counts that kind's
// rows and, past the bound, evicts those whose window ends first with
// their attempts. Between counts a kind can pass the bound by at most
// MaxKeys/8 rows per replica. Only slots taken pay for it (a refused
// Take never writes), and only once in MaxKeys/8 of them. It is best
// effort: a failure leaves the rows to the next count and to Prune.
func (t *Throttle) afterReserve(ctx context.Context, kh string) {
	k := kindIndex(kh[0])
	if t.taken[k].Add(1)%max(1, t.maxKeys/8) != 0 {
		return
	}
	_, _ = t.capKind(context.WithoutCancel(ctx), k)
}

// capKind evicts the key rows of kind k past MaxKeys, the ones whose
// window ends first, and says how many it evicted.
func (t *Throttle) capKind(ctx context.Context, k int) (int64, error) {
	low, high := string(keyKinds[k].tag), string(keyKinds[k].tag+1)
	var rows int64
	if err := t.p.orm.WithContext(ctx).Raw(t.q.countKind, low, high).Scan(&rows).Error; err != nil {
		return 0, fmt.Errorf("throttle cap: count keys: %w", err)
	}
	var evicted int64
	for over := rows - t.maxKeys; over > 0; over -= maxEvictBatch {
		n, err := t.evict(ctx, low, high, min(over, maxEvictBatch))
		evicted += n
		if err != nil || n == 0 {
			return evicted, err
		}
	}
	return evicted, nil
}

// evict removes the n key rows of [low, high) whose window ends first,
// with their attempts, in one transaction that holds their locks.
func (t *Throttle) evict(ctx context.Context, low, high string, n int64) (int64, error) {
	var gone int64
	err := t.p.orm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		var keys []string
		if err := tx.Raw(t.q.victims, low, high, n).Scan(&keys).Error; err != nil {
			return fmt.Errorf("choose keys: %w", err)
		}
		if len(keys) == 0 {
			return nil
		}
		if err := tx.Exec("DELETE FROM login_attempts WHERE key_hash IN ?", keys).Error; err != nil {
			return fmt.Errorf("evict attempts: %w", err)
		}
		res := tx.Exec("DELETE FROM login_throttle_keys WHERE key_hash IN ?", keys)
		gone = res.RowsAffected
		return res.Error
	})
	if err != nil {
		return 0, fmt.Errorf("throttle cap: %w", err)
	}
	return gone, nil
}

// Prune deletes at most limit attempts and at most limit key rows whose
// window ended by the database's now, and says how many rows it deleted.
// The sweep calls it; Takes never prune other keys' rows.
func (t *Throttle) Prune(ctx context.Context, limit int) (int64, error) {
	if limit <= 0 {
		return 0, errPruneLimit
	}
	var n int64
	for _, q := range t.q.prune {
		res := t.p.orm.WithContext(ctx).Exec(q, limit)
		if res.Error != nil {
			return n, fmt.Errorf("throttle prune: %w", res.Error)
		}
		n += res.RowsAffected
	}
	return n, nil
}

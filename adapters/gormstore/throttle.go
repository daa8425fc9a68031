package gormstore

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/ports"
)

// Throttle is a ports.LoginThrottle kept in the store's database, so every
// replica on that database shares one budget per key. A Take locks the
// key's row (MySQL: the upsert's row lock; SQLite: the one writer, and
// BEGIN IMMEDIATE across processes), counts the attempts in the window
// and reserves one in the same transaction: the check and the reservation
// are one step, however many Takes race on however many replicas.
type Throttle struct {
	s *Store
	// PruneBatch bounds the expired rows each Take removes; 0 turns it off
	// (Prune must then be called).
	PruneBatch int
}

var _ ports.LoginThrottle = (*Throttle)(nil)

// NewThrottle returns the database-backed throttle of s.
func NewThrottle(s *Store) *Throttle { return &Throttle{s: s, PruneBatch: 8} }

// maxThrottleRetries bounds the re-runs of a Take that MySQL chose as a
// deadlock victim (two first Takes of a new key may be).
const maxThrottleRetries = 5

// Take reserves one attempt for key when fewer than limit were reserved
// in the window before now.
func (t *Throttle) Take(ctx context.Context, key string, limit int, window time.Duration, now time.Time) (ports.Reservation, error) {
	if limit <= 0 || window <= 0 {
		return ports.Reservation{}, fmt.Errorf("throttle: limit %d and window %s must be positive", limit, window)
	}
	kh := throttleKey(key)
	for tries := 0; ; tries++ {
		r, err := t.take(ctx, kh, limit, window, now)
		if err != nil && isRetryable(err) && tries < maxThrottleRetries && ctx.Err() == nil {
			continue
		}
		if err != nil {
			return ports.Reservation{}, fmt.Errorf("throttle take: %w", err)
		}
		r.Key = key
		if t.PruneBatch > 0 && t.s.driver == MySQL {
			// Outside the Take's transaction: pruning other keys' rows
			// there would make unrelated Takes wait on each other.
			_, _ = t.Prune(ctx, now, t.PruneBatch)
		}
		return r, nil
	}
}

func (t *Throttle) take(ctx context.Context, kh string, limit int, window time.Duration, now time.Time) (ports.Reservation, error) {
	var r ports.Reservation
	var opts *sql.TxOptions
	lock := "INSERT INTO login_throttle_keys (key_hash, expires_ns) VALUES (?, ?) ON CONFLICT(key_hash) DO UPDATE SET expires_ns = MAX(expires_ns, excluded.expires_ns)"
	if t.s.driver == MySQL {
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
		lock = "INSERT INTO login_throttle_keys (key_hash, expires_ns) VALUES (?, ?) ON DUPLICATE KEY UPDATE expires_ns = GREATEST(expires_ns, VALUES(expires_ns))"
	}
	nowNs, fromNs, untilNs := now.UnixNano(), now.Add(-window).UnixNano(), now.Add(window).UnixNano()
	err := t.s.db.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(lock, kh, untilNs).Error; err != nil {
			return fmt.Errorf("lock key: %w", err)
		}
		// The limit newest attempts in the window: when there are limit of
		// them, the oldest of these is the one whose leaving frees a slot.
		var held []int64
		if err := tx.Raw("SELECT at_ns FROM login_attempts WHERE key_hash = ? AND at_ns > ? ORDER BY at_ns DESC LIMIT ?", kh, fromNs, limit).
			Scan(&held).Error; err != nil {
			return fmt.Errorf("count attempts: %w", err)
		}
		if len(held) >= limit {
			r.RetryAfter = time.Duration(held[limit-1] - fromNs)
			return nil
		}
		id := attemptID()
		if err := tx.Exec("INSERT INTO login_attempts (key_hash, attempt_id, at_ns, expires_ns) VALUES (?, ?, ?, ?)", kh, id, nowNs, untilNs).Error; err != nil {
			return fmt.Errorf("reserve attempt: %w", err)
		}
		r.ID, r.OK = id, true
		if t.PruneBatch > 0 && t.s.driver == SQLite {
			// The one writer holds the database anyway: pruning here costs
			// no commit of its own.
			_, err := t.prune(tx, nowNs, t.PruneBatch)
			return err
		}
		return nil
	}, opts)
	return r, err
}

// Cancel gives a reservation back: the attempt does not count.
func (t *Throttle) Cancel(ctx context.Context, r ports.Reservation) error {
	if r.ID == "" {
		return nil
	}
	err := t.s.db.WithContext(ctx).Exec("DELETE FROM login_attempts WHERE key_hash = ? AND attempt_id = ?", throttleKey(r.Key), r.ID).Error
	if err != nil {
		return fmt.Errorf("throttle cancel: %w", err)
	}
	return nil
}

// Prune deletes at most limit attempts and at most limit key rows whose
// window ended by now, and says how many rows it deleted.
func (t *Throttle) Prune(ctx context.Context, now time.Time, limit int) (int64, error) {
	if limit <= 0 {
		return 0, errors.New("throttle prune: limit must be positive")
	}
	return t.prune(t.s.db.WithContext(ctx), now.UnixNano(), limit)
}

func (t *Throttle) prune(db *gorm.DB, nowNs int64, limit int) (int64, error) {
	stmts := []string{
		"DELETE FROM login_attempts WHERE id IN (SELECT id FROM login_attempts WHERE expires_ns <= ? LIMIT ?)",
		"DELETE FROM login_throttle_keys WHERE key_hash IN (SELECT key_hash FROM login_throttle_keys WHERE expires_ns <= ? LIMIT ?)",
	}
	if t.s.driver == MySQL {
		stmts = []string{
			"DELETE FROM login_attempts WHERE expires_ns <= ? LIMIT ?",
			"DELETE FROM login_throttle_keys WHERE expires_ns <= ? LIMIT ?",
		}
	}
	var n int64
	for _, q := range stmts {
		res := db.Exec(q, nowNs, limit)
		if res.Error != nil {
			return n, fmt.Errorf("throttle prune: %w", res.Error)
		}
		n += res.RowsAffected
	}
	return n, nil
}

// throttleKey is the stored form of a key: its SHA-256, so any key is
// compared byte for byte and stored in 64 characters.
func throttleKey(key string) string {
	sum := sha256.Sum256([]byte(key))
	return hex.EncodeToString(sum[:])
}

func attemptID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

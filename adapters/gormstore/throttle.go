package gormstore

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/ports"
)

// Throttle is a ports.LoginThrottle kept in the store's database, so every
// replica on that database shares one budget per key (contract §7,
// "Atomic login throttling").
//
// Invariants:
//   - Windows follow the database's clock, never the caller's: attempts
//     are dated and counted by one statement's own clock (MySQL
//     UTC_TIMESTAMP(6), SQLite the host's clock of the one file), so
//     replicas whose clocks differ share one window ("Replicas share one
//     clock for the throttle").
//   - It uses a pool of its own (ThrottleOptions.Conns connections, one on
//     SQLite), never the connections reports use.
//   - A refused Take is one non-locking read: no write, no transaction,
//     no row lock. Only a Take the read found room for locks the key's
//     row (MySQL: the upsert's row lock; SQLite: BEGIN IMMEDIATE), counts
//     again and takes the slot in the same transaction, so the check and the
//     take are one step however many Takes race on however many
//     replicas. Within one replica, Takes of one key wait on an in-process
//     gate first, so they neither race each other to the row lock nor
//     pay for the locking path when the read would have refused them.
//   - Expired rows are deleted by Prune (the sweep), not by Takes; the key
//     rows of each kind are capped (ThrottleOptions.MaxKeys), see cap.
type Throttle struct {
	p       *pool
	driver  string
	q       throttleSQL
	gates   [gateStripes]chan struct{}
	maxKeys int64
	// taken counts, per kind, the slots taken since this replica last
	// counted that kind's key rows.
	taken [len(keyKinds)]atomic.Int64
}

// ThrottleOptions size the throttle.
type ThrottleOptions struct {
	// Conns bounds the throttle's own pool on MySQL (SQLite: always one
	// connection, the database has one writer).
	Conns int
	// MaxKeys bounds the key rows kept of each kind (user names, client
	// addresses, other), as throttle.max_entries bounds the memory
	// throttle: past it the rows whose window ends first are evicted.
	MaxKeys int
}

var _ ports.LoginThrottle = (*Throttle)(nil)

// gateStripes is the number of in-process gates; keys share them by hash,
// so the gates take fixed memory whatever keys arrive.
const gateStripes = 64

// maxThrottleRetries bounds the re-runs of a locking Take that lost a
// deadlock (two first Takes of a new key, on two replicas, may) or a
// Galera certification (two Takes of one key on two nodes), each after a
// jittered pause.
const maxThrottleRetries = 8

// NewThrottle returns the database-backed throttle of s on a pool of its
// own; Close closes that pool.
func NewThrottle(s *Store, o ThrottleOptions) (*Throttle, error) {
	if o.Conns <= 0 || o.MaxKeys <= 0 {
		return nil, fmt.Errorf("gormstore throttle: Conns (%d) and MaxKeys (%d) must be above 0", o.Conns, o.MaxKeys)
	}
	conns := o.Conns
	if s.driver == SQLite {
		conns = 1
	}
	p, err := s.openOwnPool(conns)
	if err != nil {
		return nil, fmt.Errorf("gormstore throttle: %w", err)
	}
	t := &Throttle{p: p, driver: s.driver, q: throttleStatements(s.driver), maxKeys: int64(o.MaxKeys)}
	for i := range t.gates {
		t.gates[i] = make(chan struct{}, 1)
	}
	return t, nil
}

// Close closes the throttle's pool.
func (t *Throttle) Close() error { return t.p.close() }

// Take reserves one attempt for key when fewer than limit were reserved
// in the window before the database's now. The caller's now is not used:
// see the type's invariants.
func (t *Throttle) Take(ctx context.Context, key ports.ThrottleKey, limit int, window time.Duration, _ time.Time) (ports.Slot, error) {
	kh, err := checkedKey(key, limit, window)
	if err != nil {
		return ports.Slot{}, err
	}
	gate := t.gates[gateOf(kh)]
	select {
	case gate <- struct{}{}:
	case <-ctx.Done():
		return ports.Slot{}, fmt.Errorf("throttle take: %w", ctx.Err())
	}
	r, err := t.takeGated(ctx, kh, limit, window)
	<-gate
	if err != nil {
		return ports.Slot{}, fmt.Errorf("throttle take: %w", err)
	}
	r.Key = key
	if r.OK {
		t.afterReserve(ctx, kh)
	}
	return r, nil
}

// Check is Take's first step alone: one non-locking read of the key's
// newest attempts in the window, by the database's clock.
func (t *Throttle) Check(ctx context.Context, key ports.ThrottleKey, limit int, window time.Duration, _ time.Time) (ports.Verdict, error) {
	kh, err := checkedKey(key, limit, window)
	if err != nil {
		return ports.Verdict{}, err
	}
	held, now, err := t.held(t.p.orm.WithContext(ctx), kh, limit, window)
	if err != nil {
		return ports.Verdict{}, fmt.Errorf("throttle check: %w", err)
	}
	if len(held) >= limit {
		return refused(held, limit, now, window), nil
	}
	return ports.Verdict{OK: true}, nil
}

func (t *Throttle) takeGated(ctx context.Context, kh string, limit int, window time.Duration) (ports.Slot, error) {
	held, now, err := t.held(t.p.orm.WithContext(ctx), kh, limit, window)
	if err != nil {
		return ports.Slot{}, fmt.Errorf("read attempts: %w", err)
	}
	if len(held) >= limit {
		return ports.Slot{Verdict: refused(held, limit, now, window)}, nil
	}
	for tries := 0; ; tries++ {
		r, err := t.reserve(ctx, kh, limit, window)
		if err != nil && isRetryable(err) && tries < maxThrottleRetries && pause(ctx, tries) {
			continue
		}
		return r, err
	}
}

// held reads, without locking, the at most limit newest attempts of kh
// still in the window, newest first, and the database's now.
func (t *Throttle) held(db *gorm.DB, kh string, limit int, window time.Duration) ([]int64, int64, error) {
	rows, err := db.Raw(t.q.held, kh, int64(window), limit).Rows()
	if err != nil {
		return nil, 0, err
	}
	defer rows.Close()
	var held []int64
	var now int64
	for rows.Next() {
		var at int64
		if err := rows.Scan(&at, &now); err != nil {
			return nil, 0, err
		}
		held = append(held, at)
	}
	return held, now, rows.Err()
}

// refused is the answer when held fills the budget: the oldest of the
// limit newest attempts is the one whose leaving frees a slot.
func refused(held []int64, limit int, now int64, window time.Duration) ports.Verdict {
	return ports.Verdict{RetryAfter: time.Duration(held[limit-1] + int64(window) - now)}
}

// reserve is the locking path: lock the key's row, count again, reserve.
// It also deletes the key's own expired attempts when it sees some (under
// the lock it holds anyway), so a key's rows stay near its budget even
// between sweeps.
func (t *Throttle) reserve(ctx context.Context, kh string, limit int, window time.Duration) (ports.Slot, error) {
	var r ports.Slot
	var opts *sql.TxOptions
	if t.driver == MySQL {
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	err := t.p.orm.WithContext(ctx).Transaction(func(tx *gorm.DB) error {
		if err := tx.Exec(t.q.lockKey, kh, int64(window)).Error; err != nil {
			return fmt.Errorf("lock key: %w", err)
		}
		held, now, stale, err := t.newest(tx, kh, limit, window)
		if err != nil {
			return fmt.Errorf("count attempts: %w", err)
		}
		if len(held) >= limit {
			r.Verdict = refused(held, limit, now, window)
			return nil
		}
		id := attemptID()
		if err := tx.Exec(t.q.reserve, kh, id, int64(window)).Error; err != nil {
			return fmt.Errorf("reserve attempt: %w", err)
		}
		if stale {
			if err := tx.Exec(t.q.dropStale, kh).Error; err != nil {
				return fmt.Errorf("drop expired attempts: %w", err)
			}
		}
		r.ID, r.OK = id, true
		return nil
	}, opts)
	return r, err
}

// newest reads the key's limit+1 newest attempts under the key's lock:
// those still in the window (newest first), the database's now, and
// whether any has expired (attempts of one key expire in the order they
// were made, so an expired one, if any, is among them).
func (t *Throttle) newest(tx *gorm.DB, kh string, limit int, window time.Duration) (held []int64, now int64, stale bool, err error) {
	rows, err := tx.Raw(t.q.newest, kh, limit+1).Rows()
	if err != nil {
		return nil, 0, false, err
	}
	defer rows.Close()
	type row struct{ at, expires int64 }
	var all []row
	for rows.Next() {
		var x row
		if err := rows.Scan(&x.at, &x.expires, &now); err != nil {
			return nil, 0, false, err
		}
		all = append(all, x)
	}
	for _, x := range all {
		if x.at > now-int64(window) && len(held) < limit {
			held = append(held, x.at)
		}
		stale = stale || x.expires <= now
	}
	return held, now, stale, rows.Err()
}

// Cancel gives a slot back: the attempt does not count.
func (t *Throttle) Cancel(ctx context.Context, r ports.Slot) error {
	if r.ID == "" {
		return nil
	}
	kh, err := throttleKey(r.Key)
	if err != nil {
		return err
	}
	err = t.p.orm.WithContext(ctx).Exec("DELETE FROM login_attempts WHERE key_hash = ? AND attempt_id = ?", kh, r.ID).Error
	if err != nil {
		return fmt.Errorf("throttle cancel: %w", err)
	}
	return nil
}

// errPruneLimit is Prune's answer to a limit it cannot use.
var errPruneLimit = errors.New("throttle prune: limit must be positive")

// gateOf is the gate stripe of a stored key.
func gateOf(kh string) int {
	b, _ := hex.DecodeString(kh[1:5])
	return (int(b[0])<<8 | int(b[1])) % gateStripes
}

func attemptID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

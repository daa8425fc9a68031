package passwords

import (
	"errors"
	"sync"

	"golang.org/x/crypto/bcrypt"
)

// The equal work of every comparison. bcrypt's work at cost c is 2^c
// rounds of its key schedule. A comparison against a hash of cost c below
// the level L owes 2^L - 2^c rounds, which is 2^c + 2^(c+1) + ... +
// 2^(L-1): one comparison against a dummy hash of each of those costs.
// A comparison that did no work (a hash bcrypt cannot read) owes 2^L: one
// against a dummy of cost L. So every Compare runs exactly 2^L rounds,
// and an unknown name cannot be told from a known one by the work done.

// raise makes the level at least hash's cost, when bcrypt can read it,
// and returns the level.
func (b *Bcrypt) raise(hash string) int {
	c, err := bcrypt.Cost([]byte(hash))
	for {
		level := b.level.Load()
		if err != nil || int32(c) <= level || b.level.CompareAndSwap(level, int32(c)) {
			return int(max(level, int32(c)))
		}
	}
}

// done returns the rounds a comparison of hash that returned err ran:
// 2^cost when bcrypt ran (it matched or not), 0 when it refused the hash
// before running.
func (b *Bcrypt) done(hash string, err error) uint64 {
	if err != nil && !errors.Is(err, bcrypt.ErrMismatchedHashAndPassword) {
		return 0
	}
	c, cerr := bcrypt.Cost([]byte(hash))
	if cerr != nil {
		return 0
	}
	b.ran(c)
	return 1 << c
}

// pad runs what a comparison that ran done rounds owes to level: one
// comparison of password against a dummy of each cost whose bit is set
// in 2^level - done. Their outcome is not read.
func (b *Bcrypt) pad(level int, done uint64, password string) {
	total := uint64(1) << level
	if done >= total {
		return
	}
	owed := total - done
	for c := bcrypt.MinCost; c <= level; c++ {
		if owed&(1<<c) == 0 {
			continue
		}
		h, made, err := b.dummies.at(c)
		if err != nil || made {
			// Making the dummy ran one computation at c: that was the work.
			if err == nil {
				b.ran(c)
			}
			continue
		}
		_ = bcrypt.CompareHashAndPassword([]byte(h), []byte(password))
		b.ran(c)
	}
}

func (b *Bcrypt) ran(cost int) {
	if b.onRun != nil {
		b.onRun(cost)
	}
}

// dummies are hashes of a password no user has, one per cost, each made
// the first time it is needed (under its own lock: making a dear one
// does not hold up the others).
type dummies [bcrypt.MaxCost + 1]struct {
	mu   sync.Mutex
	hash string
}

// at returns the dummy of cost c and whether this call made it.
func (d *dummies) at(c int) (string, bool, error) {
	e := &d[c]
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.hash != "" {
		return e.hash, false, nil
	}
	h, err := bcrypt.GenerateFromPassword([]byte("not-a-user-password"), c)
	if err != nil {
		return "", false, err
	}
	e.hash = string(h)
	return e.hash, true, nil
}

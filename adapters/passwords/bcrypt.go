// Package passwords hashes and checks passwords with bcrypt. Hashes made by
// PHP's password_hash ($2y$) verify as they are. A comparison costs tens
// of milliseconds of CPU by design, so the number running at once is
// bounded: a flood of logins waits for a slot briefly, then is told to
// come back, instead of starving everything else of CPU.
package passwords

import (
	"context"
	"fmt"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Bcrypt is a ports.PasswordHasher.
type Bcrypt struct {
	Cost  int
	dummy string
	slots chan struct{}
	wait  time.Duration
}

var _ ports.PasswordHasher = (*Bcrypt)(nil)

// Options bound the comparisons: at most MaxConcurrent at once, each
// waiting at most Wait for a slot. The configuration gives both
// (auth.max_concurrent_hashes, auth.hash_wait); New refuses a zero.
type Options struct {
	MaxConcurrent int
	Wait          time.Duration
}

// New returns a hasher of the given cost (bcrypt's bounds; the
// configuration allows 10 to 16, tests use the cheapest).
func New(cost int, opts Options) (*Bcrypt, error) {
	switch {
	case cost < bcrypt.MinCost || cost > bcrypt.MaxCost:
		return nil, fmt.Errorf("bcrypt: cost %d, want %d to %d", cost, bcrypt.MinCost, bcrypt.MaxCost)
	case opts.MaxConcurrent <= 0 || opts.Wait <= 0:
		return nil, fmt.Errorf("bcrypt: the comparisons at once (%d) and their wait (%s) must be above 0", opts.MaxConcurrent, opts.Wait)
	}
	dummy, err := bcrypt.GenerateFromPassword([]byte("not-a-user-password"), cost)
	if err != nil {
		return nil, fmt.Errorf("bcrypt: %w", err)
	}
	return &Bcrypt{Cost: cost, dummy: string(dummy), slots: make(chan struct{}, opts.MaxConcurrent), wait: opts.Wait}, nil
}

// Hash returns the bcrypt hash of password.
func (b *Bcrypt) Hash(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), b.Cost)
	if err != nil {
		return "", fmt.Errorf("bcrypt: %w", err)
	}
	return string(h), nil
}

// Compare returns nil when password matches hash. It waits at most the
// configured time for a comparison slot; then it returns an error of kind
// domain.ErrUnavailable with RetryAfter.
func (b *Bcrypt) Compare(ctx context.Context, hash, password string) error {
	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	select {
	case b.slots <- struct{}{}:
	case <-timer.C:
		e := domain.Unavailable("no password comparison slot")
		e.RetryAfter = time.Second
		return e.WithCause(fmt.Errorf("no password comparison slot within %s (%d busy)", b.wait, cap(b.slots)))
	case <-ctx.Done():
		return domain.Unavailable("no password comparison slot").WithCause(ctx.Err())
	}
	defer func() { <-b.slots }()
	return bcrypt.CompareHashAndPassword([]byte(hash), []byte(password))
}

// NeedsRehash reports whether hash is not a bcrypt hash of b.Cost.
func (b *Bcrypt) NeedsRehash(hash string) bool {
	cost, err := bcrypt.Cost([]byte(hash))
	return err != nil || cost != b.Cost
}

// Dummy returns a hash of the same cost for unknown users.
func (b *Bcrypt) Dummy() string { return b.dummy }

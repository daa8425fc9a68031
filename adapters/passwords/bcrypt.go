// Package passwords hashes and checks passwords with bcrypt. Hashes made by
// PHP's password_hash ($2y$) verify as they are. A comparison costs tens
// of milliseconds of CPU by design, so the number running at once is
// bounded: a flood of logins waits for a slot briefly, then is told to
// come back, instead of starving everything else of CPU.
//
// Every comparison does the same bcrypt work, whatever the cost of the
// hash it is given (work.go): a stored hash of a lower cost than the
// level (an imported PHP hash) is padded up to it, and a dearer one
// raises the level for every comparison after it. So an unknown name,
// compared against Dummy, costs what a known name costs (contract §5).
package passwords

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Bcrypt is a ports.PasswordHasher.
type Bcrypt struct {
	// Cost is the cost of the hashes Hash makes (auth.bcrypt_cost).
	Cost int
	// level is the work of every comparison, as a bcrypt cost: Cost, or
	// the cost of the dearest hash admitted or compared since New.
	level   atomic.Int32
	dummies dummies
	slots   chan struct{}
	wait    time.Duration
	// onRun, set only by tests (export_test.go), is called with the cost
	// of every bcrypt computation the hasher runs.
	onRun func(cost int)
}

var (
	_ ports.PasswordHasher = (*Bcrypt)(nil)
	_ ports.SlotHolder     = (*Bcrypt)(nil)
)

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
	b := &Bcrypt{Cost: cost, slots: make(chan struct{}, opts.MaxConcurrent), wait: opts.Wait}
	b.level.Store(int32(cost))
	if _, _, err := b.dummies.at(cost); err != nil {
		return nil, fmt.Errorf("bcrypt: %w", err)
	}
	return b, nil
}

// Hash returns the bcrypt hash of password.
func (b *Bcrypt) Hash(password string) (string, error) {
	h, err := bcrypt.GenerateFromPassword([]byte(password), b.Cost)
	if err != nil {
		return "", fmt.Errorf("bcrypt: %w", err)
	}
	return string(h), nil
}

// Compare returns nil when password matches hash, after the work of one
// comparison at the hasher's level (Level), whatever hash's own cost. It
// waits at most the configured time for a comparison slot; then it
// returns an error of kind domain.ErrUnavailable with RetryAfter.
func (b *Bcrypt) Compare(ctx context.Context, hash, password string) error {
	if ctx.Value(heldSlot{b}) == nil {
		if err := b.take(ctx); err != nil {
			return err
		}
		defer func() { <-b.slots }()
	}
	level := b.raise(hash)
	err := bcrypt.CompareHashAndPassword([]byte(hash), []byte(password))
	b.pad(level, b.done(hash, err), password)
	return err
}

// heldSlot marks a context whose attempt holds one of b's slots (Hold).
type heldSlot struct{ b *Bcrypt }

// Hold takes a comparison slot for a login attempt's comparisons
// (ports.SlotHolder): Compare with the returned context takes none.
func (b *Bcrypt) Hold(ctx context.Context) (context.Context, func(), error) {
	if err := b.take(ctx); err != nil {
		return ctx, func() {}, err
	}
	var once sync.Once
	return context.WithValue(ctx, heldSlot{b}, true), func() { once.Do(func() { <-b.slots }) }, nil
}

// take waits at most the configured time for a comparison slot.
func (b *Bcrypt) take(ctx context.Context) error {
	timer := time.NewTimer(b.wait)
	defer timer.Stop()
	select {
	case b.slots <- struct{}{}:
		return nil
	case <-timer.C:
		e := domain.Unavailable("no password comparison slot")
		e.RetryAfter = time.Second
		return e.WithCause(fmt.Errorf("no password comparison slot within %s (%d busy)", b.wait, cap(b.slots)))
	case <-ctx.Done():
		return domain.Unavailable("no password comparison slot").WithCause(ctx.Err())
	}
}

// NeedsRehash reports whether hash is not a bcrypt hash of b.Cost.
func (b *Bcrypt) NeedsRehash(hash string) bool {
	cost, err := bcrypt.Cost([]byte(hash))
	return err != nil || cost != b.Cost
}

// Dummy returns a hash for unknown users, of cost Cost: Compare pads it
// to the level like any other hash.
func (b *Bcrypt) Dummy() string {
	h, _, _ := b.dummies.at(b.Cost) // made by New
	return h
}

// Admit raises the level to the cost of hash, a stored user's: from then
// on every comparison does at least the work of one against it.
func (b *Bcrypt) Admit(hash string) { b.raise(hash) }

// Level is the cost whose work every comparison does: Cost, or more once
// a dearer hash was admitted or compared.
func (b *Bcrypt) Level() int { return int(b.level.Load()) }

package passwords_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/bcrypt"

	"github.com/lender/disbursementd/adapters/passwords"
)

// work counts the bcrypt work a hasher does: 2^cost rounds per run.
type work struct {
	mu     sync.Mutex
	rounds uint64
}

func (w *work) add(cost int) { w.mu.Lock(); w.rounds += 1 << cost; w.mu.Unlock() }

// during returns the rounds f made the hasher run.
func (w *work) during(f func()) uint64 {
	w.mu.Lock()
	before := w.rounds
	w.mu.Unlock()
	f()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.rounds - before
}

// phpHash is what PHP's password_hash makes at cost: a $2y$ bcrypt hash.
func phpHash(t *testing.T, password string, cost int) string {
	t.Helper()
	h, err := bcrypt.GenerateFromPassword([]byte(password), cost)
	if err != nil {
		t.Fatal(err)
	}
	return "$2y$" + string(h[4:])
}

// TestEveryComparisonDoesTheSameWork: contract §5, unknown users cost the
// same as wrong passwords, whatever costs are stored. The bcrypt work of
// each path is counted (2^cost rounds per run), not timed: an unknown
// name (compared against Dummy), a wrong password for a hash of the
// configured cost, for an imported $2y$ hash of a lower cost and for a
// hash of a higher cost (once the hasher knows it: Admit, as serve does
// with every stored hash at start) all do the same work, and a right
// password does too.
func TestEveryComparisonDoesTheSameWork(t *testing.T) {
	ctx := context.Background()
	const cost = 5 // auth.bcrypt_cost, scaled down (bcrypt's cheapest is 4)
	b, err := passwords.New(cost, passwords.Options{MaxConcurrent: 2, Wait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	var w work
	passwords.OnRun(b, w.add)
	current, err := b.Hash("current password")
	if err != nil {
		t.Fatal(err)
	}
	cheap := phpHash(t, "imported password", cost-1)
	paths := func() map[string]uint64 {
		return map[string]uint64{
			"unknown name":                       w.during(func() { _ = b.Compare(ctx, b.Dummy(), "guess") }),
			"wrong password, current cost":       w.during(func() { _ = b.Compare(ctx, current, "guess") }),
			"wrong password, imported $2y$ cost": w.during(func() { _ = b.Compare(ctx, cheap, "guess") }),
			"right password, imported $2y$ cost": w.during(func() { _ = b.Compare(ctx, cheap, "imported password") }),
			"malformed hash":                     w.during(func() { _ = b.Compare(ctx, "$2y$10$short", "guess") }),
		}
	}
	check := func(level int, got map[string]uint64) {
		t.Helper()
		for path, rounds := range got {
			if want := uint64(1) << level; rounds != want {
				t.Errorf("%s: %d bcrypt rounds, want %d (cost %d), as an unknown name", path, rounds, want, level)
			}
		}
	}
	check(cost, paths())

	// A hash dearer than the configured cost: once admitted, every path
	// does its work, the unknown name's included.
	dear := phpHash(t, "old password", cost+1)
	b.Admit(dear)
	got := paths()
	got["wrong password, dearer cost"] = w.during(func() { _ = b.Compare(ctx, dear, "guess") })
	check(cost+1, got)
	if err := b.Compare(ctx, cheap, "imported password"); err != nil {
		t.Fatalf("the padded comparison refused the right password: %v", err)
	}
	if err := b.Compare(ctx, cheap, "guess"); err == nil {
		t.Fatal("the padded comparison accepted a wrong password")
	}
}

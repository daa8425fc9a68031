package passwords

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

func TestBcrypt(t *testing.T) {
	ctx := context.Background()
	for _, bad := range []struct {
		cost int
		o    Options
	}{{0, Options{MaxConcurrent: 1, Wait: time.Second}}, {10, Options{Wait: time.Second}}, {10, Options{MaxConcurrent: 1}}} {
		if _, err := New(bad.cost, bad.o); err == nil {
			t.Errorf("New(%d, %+v): no error; a zero is the configuration's to resolve", bad.cost, bad.o)
		}
	}
	b, err := New(10, Options{MaxConcurrent: 1, Wait: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	h, err := b.Hash("correct horse battery staple")
	if err != nil {
		t.Fatal(err)
	}
	if b.Compare(ctx, h, "correct horse battery staple") != nil || b.Compare(ctx, h, "wrong") == nil {
		t.Fatal("Compare disagrees with Hash")
	}
	if b.Compare(ctx, b.Dummy(), "") == nil {
		t.Fatal("the dummy hash matched")
	}
	// The PHP manual's password_verify example: a $2y$ hash made by
	// password_hash("rasmuslerdorf", PASSWORD_DEFAULT).
	const php = "$2y$10$.vGA1O9wmRjrwAVXD98HNOgsNpDczlqm3Jq7KnEd1rVAGv3Fykk1a"
	if err := b.Compare(ctx, php, "rasmuslerdorf"); err != nil {
		t.Fatalf("PHP $2y$ hash: %v", err)
	}
	if b.Compare(ctx, php, "rasmuslerdorF") == nil {
		t.Fatal("PHP hash matched the wrong password")
	}
	// The PHP hash has cost 10: current under cost 10, stale under 12.
	if b.NeedsRehash(php) || b.NeedsRehash(h) || !b.NeedsRehash("not a hash") {
		t.Fatal("NeedsRehash wrong for cost 10")
	}
	if !(&Bcrypt{Cost: 12}).NeedsRehash(php) {
		t.Fatal("a cost-10 hash does not need a rehash under cost 12")
	}
}

// TestConcurrentComparisonsAreBounded: with every slot taken, a
// comparison waits its bound and is then ErrUnavailable with a
// Retry-After; once a slot frees, it runs.
func TestConcurrentComparisonsAreBounded(t *testing.T) {
	b, err := New(4, Options{MaxConcurrent: 2, Wait: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	b.slots <- struct{}{}
	b.slots <- struct{}{} // two comparisons in progress
	err = b.Compare(context.Background(), b.Dummy(), "x")
	var de *domain.Error
	if !errors.As(err, &de) || !errors.Is(err, domain.ErrUnavailable) || de.RetryAfter <= 0 {
		t.Fatalf("with every slot busy: %v, want ErrUnavailable with RetryAfter", err)
	}
	<-b.slots
	if err := b.Compare(context.Background(), b.Dummy(), "x"); err == nil || errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("with a slot free: %v, want a mismatch", err)
	}
}

// TestHoldCoversAnAttemptsComparisons: a login attempt holds one slot
// for all its comparisons (ports.SlotHolder): with one slot, the holder
// compares twice at once, another comparison is turned away busy while
// it holds, and release gives the slot back once, however often called.
func TestHoldCoversAnAttemptsComparisons(t *testing.T) {
	b, err := New(4, Options{MaxConcurrent: 1, Wait: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	held, release, err := b.Hold(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2 {
		if err := b.Compare(held, b.Dummy(), "x"); err == nil || errors.Is(err, domain.ErrUnavailable) {
			t.Fatalf("comparison %d under the hold: %v, want a mismatch", i, err)
		}
	}
	if err := b.Compare(context.Background(), b.Dummy(), "x"); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("another comparison while the slot is held: %v, want ErrUnavailable", err)
	}
	if _, _, err := b.Hold(context.Background()); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("a second hold: %v, want ErrUnavailable", err)
	}
	release()
	release()
	if n := len(b.slots); n != 0 {
		t.Fatalf("%d slots taken after release", n)
	}
	if err := b.Compare(context.Background(), b.Dummy(), "x"); err == nil || errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("after release: %v, want a mismatch", err)
	}
}

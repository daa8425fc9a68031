package jwtkeys

import (
	"context"
	"crypto/rsa"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
)

// TestCheckSignsAndVerifies: the readiness check passes for working keys
// and fails when the signing key's token is not accepted by the set.
func TestCheckSignsAndVerifies(t *testing.T) {
	k := mustKeys(t, 2)
	if err := k.Check(context.Background()); err != nil {
		t.Fatalf("Check = %v", err)
	}
	// The set no longer holds the signer's kid (as if the key file were
	// replaced by one whose public half is not trusted).
	delete(k.keys.byKid, k.KeyID())
	k.keys.only = nil
	if err := k.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "refuse") {
		t.Fatalf("Check = %v; want the refusal named", err)
	}
	verifyOnly, err := New(nil, []*rsa.PublicKey{&testKeys()[1].PublicKey}, sysclock.Clock{})
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyOnly.Check(context.Background()); err != nil {
		t.Fatalf("verify-only Check = %v", err)
	}
}

// countingClock is a fixed clock that counts its reads.
type countingClock struct {
	at    time.Time
	reads int
}

func (c *countingClock) Now() time.Time { c.reads++; return c.at }

// TestCheckReadsItsClock: the readiness check dates its probe token by
// the clock the keys were given (as every component takes the clock it is
// given), not the system's; New refuses no clock.
func TestCheckReadsItsClock(t *testing.T) {
	clock := &countingClock{at: time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)}
	k, err := New(testKeys()[0], nil, clock)
	if err != nil {
		t.Fatal(err)
	}
	if err := k.Check(context.Background()); err != nil || clock.reads != 1 {
		t.Fatalf("Check = %v after %d reads of its clock, want nil after 1", err, clock.reads)
	}
	if _, err := New(testKeys()[0], nil, nil); err == nil {
		t.Fatal("New without a clock: no error")
	}
}

package ports_test

import (
	"context"
	"errors"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestRawPairSharesTheAttempt: a second reading of the credentials (HTTP
// Basic as sent) is checked only when the first is refused, within the
// same attempt: it costs no second slot of the user's budget, and an
// outage never leads to it (contract §10).
func TestRawPairSharesTheAttempt(t *testing.T) {
	ctx := context.Background()
	f := newAuth(t)
	attempt := func(pw, raw, addr string) error {
		_, err := f.auth.Token(ctx, ports.LoginAttempt{User: "acme", Password: pw, Addr: addr,
			Raw: &ports.Credentials{User: "acme", Password: raw}})
		return err
	}
	if err := attempt("correct horse  battery", goodPassword, "10.0.0.1"); err != nil {
		t.Fatalf("the raw pair is the password: %v", err)
	}
	before := f.hasher.Compares.Load()
	// The user's budget is 10 failures: ten refused attempts of two pairs
	// each fit in it, from addresses of their own.
	for i := range 10 {
		if err := attempt("wrong a", "wrong+a", "10.0.1."+string(rune('0'+i))); !errors.Is(err, domain.ErrInvalidClient) {
			t.Fatalf("refused attempt %d: %v, want ErrInvalidClient", i+1, err)
		}
	}
	if n := f.hasher.Compares.Load() - before; n != 20 {
		t.Errorf("%d password comparisons for 10 attempts of 2 pairs, want 20", n)
	}
	if err := attempt(goodPassword, goodPassword, "10.0.2.1"); !errors.Is(err, domain.ErrThrottled) {
		t.Fatalf("the 11th attempt: %v, want ErrThrottled", err)
	}
	// An outage stops the attempt at the first pair.
	g := newAuth(t)
	g.hasher.Busy = true
	before = g.hasher.Compares.Load()
	_, err := g.auth.Token(ctx, ports.LoginAttempt{User: "acme", Password: "x", Addr: "10.0.0.9",
		Raw: &ports.Credentials{User: "acme", Password: goodPassword}})
	if !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("busy hasher: %v, want ErrUnavailable", err)
	}
	if n := g.hasher.Compares.Load() - before; n > 1 {
		t.Errorf("%d comparisons during an outage, want at most 1", n)
	}
}

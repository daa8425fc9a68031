package ports_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestPasswordChangeRefusesEarlierTokens: after ChangePassword the old
// password is refused at once, a token issued in an earlier second is
// refused within the staleness bound (not before: the status is cached)
// with detail password_changed, and a token issued after the change
// works at once.
func TestPasswordChangeRefusesEarlierTokens(t *testing.T) {
	ctx := context.Background()
	statuses, _ := memstate.NewUserStatusCache(10)
	f := newAuthAnd(t, func(o *ports.AuthOptions) { o.Statuses, o.Staleness = statuses, 30*time.Second })
	svc := newUsers(t, f)
	old, err := f.token("acme", goodPassword, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Authenticate(ctx, old.Token); err != nil {
		t.Fatal(err) // caches the status: no change yet
	}
	if _, err := svc.ChangePassword(ctx, "acme", "short"); !errors.Is(err, domain.ErrInvalidInput) {
		t.Fatalf("short new password: %v", err)
	}
	if _, err := svc.ChangePassword(ctx, "nobody", "a new long password"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("unknown user: %v", err)
	}
	f.clock.Add(2 * time.Second)
	const newPassword = "a new long password"
	at, err := svc.ChangePassword(ctx, "acme", newPassword)
	if err != nil || !at.Equal(f.clock.Now().UTC()) {
		t.Fatalf("ChangePassword = %v, %v", at, err)
	}
	if _, err := f.token("acme", goodPassword, "10.0.0.1"); !errors.Is(err, domain.ErrInvalidClient) {
		t.Fatalf("old password after the change: %v", err)
	}
	fresh, err := f.token("acme", newPassword, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Authenticate(ctx, fresh.Token); err != nil {
		t.Fatalf("a token issued after the change: %v", err)
	}
	if _, err := f.auth.Authenticate(ctx, old.Token); err != nil {
		t.Fatalf("within the staleness bound the cached status may still hold: %v", err)
	}
	f.clock.Add(31 * time.Second)
	_, err = f.auth.Authenticate(ctx, old.Token)
	var de *domain.Error
	if !errors.As(err, &de) || de.Kind != domain.ErrInvalidToken || de.Detail != "password_changed" {
		t.Fatalf("old token past the staleness bound: %v, want invalid_token password_changed", err)
	}
	if _, err := f.auth.Authenticate(ctx, fresh.Token); err != nil {
		t.Fatalf("the new token after the bound: %v", err)
	}
}

// TestTokenPredates: the rule compares whole seconds: a token of the
// change's second is kept, one of the second before is not.
func TestTokenPredates(t *testing.T) {
	change := time.Date(2026, 3, 2, 12, 0, 5, 300_000_000, time.UTC)
	for _, tt := range []struct {
		iat  time.Time
		want bool
	}{
		{change.Add(-time.Second).Truncate(time.Second), true},
		{change.Truncate(time.Second), false},
		{change.Add(time.Second).Truncate(time.Second), false},
	} {
		if got := domain.TokenPredates(domain.Claims{IssuedAt: tt.iat}, change); got != tt.want {
			t.Errorf("iat %v, change %v: %v, want %v", tt.iat, change, got, tt.want)
		}
	}
	if domain.TokenPredates(domain.Claims{IssuedAt: change}, time.Time{}) {
		t.Error("a password never changed refuses tokens")
	}
}

package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestCheckRotationOverlap: 0, negative and over a week are refused
// naming the bound; 1s to 168h pass.
func TestCheckRotationOverlap(t *testing.T) {
	t.Parallel()
	for _, d := range []time.Duration{0, -time.Second, domain.MaxRotationOverlap + time.Second} {
		if err := domain.CheckRotationOverlap(d); err == nil || !strings.Contains(err.Error(), "at most 168h") {
			t.Errorf("CheckRotationOverlap(%s) = %v, want a refusal naming the bound", d, err)
		}
	}
	for _, d := range []time.Duration{time.Second, 24 * time.Hour, domain.MaxRotationOverlap} {
		if err := domain.CheckRotationOverlap(d); err != nil {
			t.Errorf("CheckRotationOverlap(%s) = %v", d, err)
		}
	}
}

// TestRotate: a rotation keeps the old hash until the overlap's end; a
// second one during it is RotationRunning naming the end; one after it
// moves the ended rotation's second into TokensFrom.
func TestRotate(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	u := domain.User{Name: "acme", PasswordHash: "h0"}
	r, err := u.Rotate("h1", t0, time.Hour)
	if err != nil || r.PreviousHash != "h0" || r.NewHash != "h1" || !r.PreviousUntil.Equal(t0.Add(time.Hour)) || !r.TokensFrom.IsZero() {
		t.Fatalf("first rotation: %+v, %v", r, err)
	}
	u.PasswordHash, u.PreviousPasswordHash, u.RotatedAt, u.PreviousUntil = r.NewHash, r.PreviousHash, r.RotatedAt, r.PreviousUntil
	if !u.PreviousValid(t0.Add(59*time.Minute)) || u.PreviousValid(t0.Add(time.Hour)) {
		t.Fatal("the previous secret's validity does not end exactly at the overlap's end")
	}
	_, err = u.Rotate("h2", t0.Add(30*time.Minute), time.Hour)
	if !domain.IsKind(err, domain.ErrConflict) || !strings.Contains(err.Error(), "2026-11-29T07:00:00Z") {
		t.Fatalf("a rotation during the overlap: %v", err)
	}
	r2, err := u.Rotate("h2", t0.Add(2*time.Hour), time.Hour)
	if err != nil || r2.PreviousHash != "h1" || !r2.TokensFrom.Equal(t0) {
		t.Fatalf("a rotation after the overlap: %+v, %v", r2, err)
	}
}

// TestTokenRefused: a token issued before the rotation is taken until
// the overlap's end, one issued after it always; a password change
// refuses the older ones at once; CapExpiry cuts exp to the end.
func TestTokenRefused(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 29, 6, 0, 0, 0, time.UTC)
	ut := domain.UserTokens{RotatedAt: t0, PreviousUntil: t0.Add(time.Hour)}
	before := domain.Claims{IssuedAt: t0.Add(-time.Minute)}
	after := domain.Claims{IssuedAt: t0.Add(time.Minute)}
	cases := []struct {
		name string
		c    domain.Claims
		u    domain.UserTokens
		now  time.Time
		want bool
	}{
		{"before, in the overlap", before, ut, t0.Add(59 * time.Minute), false},
		{"before, at its end", before, ut, t0.Add(time.Hour), true},
		{"after, past the end", after, ut, t0.Add(2 * time.Hour), false},
		{"same second as the rotation", domain.Claims{IssuedAt: t0}, ut, t0.Add(2 * time.Hour), false},
		{"never rotated", before, domain.UserTokens{}, t0.Add(2 * time.Hour), false},
		{"password changed after", after, domain.UserTokens{PasswordChanged: t0.Add(2 * time.Minute)}, t0.Add(3 * time.Minute), true},
	}
	for _, c := range cases {
		if got := domain.TokenRefused(c.c, c.u, c.now); got != c.want {
			t.Errorf("%s: TokenRefused = %v, want %v", c.name, got, c.want)
		}
	}
	c := domain.CapExpiry(domain.Claims{IssuedAt: t0, Expiry: t0.Add(24 * time.Hour)}, t0.Add(90*time.Minute+500*time.Millisecond))
	if !c.Expiry.Equal(t0.Add(90 * time.Minute)) {
		t.Errorf("CapExpiry: exp %s, want the overlap's end", c.Expiry)
	}
	if c := domain.CapExpiry(domain.Claims{Expiry: t0}, t0.Add(time.Hour)); !c.Expiry.Equal(t0) {
		t.Errorf("CapExpiry lengthened a token: %s", c.Expiry)
	}
}

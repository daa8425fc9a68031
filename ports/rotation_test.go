package ports_test

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestRotationLogins: after a rotation the new secret logs in; the old
// one does too during the overlap, its token's exp cut to the overlap's
// end, and its hash is never rehashed into the current one; after the
// overlap it is refused; a rotation whose store read is stale is 409.
func TestRotationLogins(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	f := newAuth(t)
	rot, err := ports.NewRotation(f.auth, f.users, f.hasher, f.clock, time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	f.clock.Add(time.Second)
	out, err := rot.Rotate(ctx, ports.RotateAttempt{Basic: &ports.Credentials{User: "acme", Password: goodPassword}, Addr: "192.0.2.1"})
	if err != nil || len(out.Secret) != 52 || domain.CheckNewPassword(out.Secret) != nil {
		t.Fatalf("Rotate: %+v, %v", out, err)
	}
	login := func(pw string) (ports.Issued, error) {
		return f.auth.Token(ctx, ports.LoginAttempt{User: "acme", Password: pw, Addr: "192.0.2.2"})
	}
	if _, err := login(out.Secret); err != nil {
		t.Fatalf("the new secret: %v", err)
	}
	f.clock.Add(30 * time.Minute)
	iss, err := login(goodPassword)
	if err != nil || !iss.Claims.Expiry.Equal(out.PreviousUntil.Truncate(time.Second)) {
		t.Fatalf("the old secret in the overlap: exp %v, %v; want the overlap's end %v", iss.Claims.Expiry, err, out.PreviousUntil)
	}
	// A hash of another cost ("old:"): a login of the old secret must not
	// rehash it into the current one.
	u, _ := f.users.GetUser(ctx, "acme")
	u.PreviousPasswordHash = "old:" + goodPassword
	_ = f.users.RotatePassword(ctx, "acme", u.PasswordHash, domain.Rotation{NewHash: u.PasswordHash, PreviousHash: u.PreviousPasswordHash, RotatedAt: u.RotatedAt, PreviousUntil: u.PreviousUntil})
	if _, err := login(goodPassword); err != nil {
		t.Fatal(err)
	}
	if u, _ := f.users.GetUser(ctx, "acme"); u.PasswordHash != "h:"+out.Secret {
		t.Fatalf("a login of the old secret replaced the current hash: %+v", u)
	}
	if _, err := rot.Rotate(ctx, ports.RotateAttempt{Token: iss.Token, Addr: "192.0.2.1"}); !domain.IsKind(err, domain.ErrConflict) {
		t.Fatalf("a second rotation in the overlap: %v", err)
	}
	f.clock.Add(30 * time.Minute)
	if _, err := login(goodPassword); !domain.IsKind(err, domain.ErrInvalidClient) {
		t.Fatalf("the old secret after the overlap: %v", err)
	}
	if _, err := ports.NewRotation(f.auth, f.users, f.hasher, f.clock, 0); err == nil {
		t.Fatal("NewRotation took an overlap of 0")
	}
}

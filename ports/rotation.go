package ports

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Rotation is a partner's own secret rotation (POST
// /v1/credentials/rotate) on the built-in login's users: a new secret
// made here, shown once, and the old one kept for the overlap
// (domain.User.Rotate).
type Rotation struct {
	auth    *Auth
	users   UserStore
	hasher  PasswordHasher
	clock   Clock
	overlap time.Duration
}

// NewRotation returns the use case on auth (whose throttle and token
// checks it uses), the user store, the hasher, the clock and the
// overlap; it refuses a missing one and an overlap that
// domain.CheckRotationOverlap refuses.
func NewRotation(auth *Auth, users UserStore, hasher PasswordHasher, clock Clock, overlap time.Duration) (*Rotation, error) {
	if auth == nil || users == nil || hasher == nil || clock == nil {
		return nil, errors.New("ports: NewRotation needs an Auth, a user store, a password hasher and a clock")
	}
	if err := domain.CheckRotationOverlap(overlap); err != nil {
		return nil, fmt.Errorf("ports: NewRotation: %w", err)
	}
	return &Rotation{auth: auth, users: users, hasher: hasher, clock: clock, overlap: overlap}, nil
}

// RotateAttempt is one rotation request from a client address, by a
// Bearer token or by the current credentials (Basic, when set; Raw as
// LoginAttempt's).
type RotateAttempt struct {
	Token      string
	Basic, Raw *Credentials
	Addr       string
}

// Rotated is a rotation done: the new secret (shown once, never
// logged), when, and until when the old one works.
type Rotated struct {
	User          string
	Secret        string
	RotatedAt     time.Time
	PreviousUntil time.Time
}

// secretBytes is a new secret's randomness: 256 bits, written as 52
// base32 characters (A-Z, 2-7: nothing a form or HTTP Basic has to
// escape), within domain.CheckNewPassword's bounds.
const secretBytes = 32

// Rotate identifies the partner (throttled as a login: Auth.Identify)
// and gives it a new secret. Errors: domain.ErrInvalidToken,
// domain.ErrInvalidClient, domain.ErrThrottled, domain.ErrConflict
// (domain.RotationRunning, or the user changed meanwhile),
// domain.ErrNotFound (a user the built-in login does not keep),
// domain.ErrUnavailable.
func (r *Rotation) Rotate(ctx context.Context, at RotateAttempt) (Rotated, error) {
	name, err := r.auth.Identify(ctx, at)
	if err != nil {
		return Rotated{}, err
	}
	u, err := r.users.GetUser(ctx, name)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return Rotated{}, domain.NewError(domain.ErrNotFound, "not_found",
			"this user's secret is kept by the lender's login, not here: ask the lender").WithCause(err)
	case err != nil:
		return Rotated{}, domain.Unavailable("user store unavailable").WithCause(err)
	}
	secret := newSecret()
	hash, err := r.hasher.Hash(secret)
	if err != nil {
		return Rotated{}, fmt.Errorf("hash secret: %w", err)
	}
	rot, err := u.Rotate(hash, r.clock.Now(), r.overlap)
	if err != nil {
		return Rotated{}, err
	}
	err = r.users.RotatePassword(ctx, u.Name, u.PasswordHash, rot)
	switch {
	case errors.Is(err, domain.ErrConflict):
		return Rotated{}, r.raced(ctx, u.Name, err)
	case err != nil:
		return Rotated{}, domain.Unavailable("user store unavailable").WithCause(err)
	}
	r.hasher.Admit(hash)
	return Rotated{User: u.Name, Secret: secret, RotatedAt: rot.RotatedAt, PreviousUntil: rot.PreviousUntil}, nil
}

// raced answers a rotation whose user changed between its read and its
// write: another replica's rotation (RotationRunning, with its end), or
// a password change or rehash (ErrConflict, to be sent again).
func (r *Rotation) raced(ctx context.Context, name string, cause error) error {
	if u, err := r.users.GetUser(ctx, name); err == nil && u.PreviousValid(r.clock.Now()) {
		return domain.RotationRunning(u.PreviousUntil).WithCause(cause)
	}
	return domain.NewError(domain.ErrConflict, "rotation_raced", "the secret changed during the rotation; send it again").WithCause(cause)
}

// newSecret returns a new secret of secretBytes random bytes.
func newSecret() string {
	b := make([]byte, secretBytes)
	_, _ = rand.Read(b) // crypto/rand never fails
	return base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b)
}

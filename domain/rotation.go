package domain

import (
	"time"
)

// A partner's own secret rotation (POST /v1/credentials/rotate): the
// service makes a new secret, and the one it replaces keeps working for
// an overlap (auth.rotation_overlap) so that a partner's replicas can
// take the new one in turn. One rotation at a time: a second one during
// the overlap is refused (RotationRunning), so a user holds at most two
// secrets and the operator always knows which two.

// MaxRotationOverlap bounds auth.rotation_overlap: an old secret that
// outlives a week is no rotation.
const MaxRotationOverlap = 7 * 24 * time.Hour

// RotationOverlapBound is what CheckRotationOverlap accepts.
var RotationOverlapBound = Bound{En: "more than 0 and at most " + shortDuration(MaxRotationOverlap)}

// CheckRotationOverlap is the rule of auth.rotation_overlap.
func CheckRotationOverlap(d time.Duration) error {
	if d <= 0 || d > MaxRotationOverlap {
		return NewError(ErrInvalidInput, "invalid_rotation_overlap", "rotation overlap "+d.String()+", want "+RotationOverlapBound.En)
	}
	return nil
}

// PreviousValid reports whether u's previous secret (the one its last
// rotation replaced) still opens a login at now.
func (u User) PreviousValid(now time.Time) bool {
	return u.PreviousPasswordHash != "" && now.Before(u.PreviousUntil)
}

// Rotation is what a rotation writes to a user: the new secret's hash,
// the replaced one's, when, until when the replaced one works, and from
// when tokens are taken (TokensFrom, stored as PasswordChangedAt).
type Rotation struct {
	NewHash, PreviousHash    string
	RotatedAt, PreviousUntil time.Time
	TokensFrom               time.Time
}

// RotationRunning is the refusal of a rotation while the last one's
// overlap lasts (ErrConflict, code rotation_in_progress); the message
// says when it ends, to the second, as the rotation's own answer did
// (previous_valid_until): "after that" is after that second.
func RotationRunning(until time.Time) *Error {
	return NewError(ErrConflict, "rotation_in_progress",
		"a rotation is under way: the previous secret works until "+until.UTC().Format(time.RFC3339)+"; rotate again after that")
}

// Rotate is u's rotation at now to the secret hashed as newHash, the old
// one kept for overlap. A rotation whose overlap has not ended is
// RotationRunning. The tokens issued before an earlier rotation, whose
// overlap is over, stay refused: that rotation's second becomes
// TokensFrom, as a password change's would.
func (u User) Rotate(newHash string, now time.Time, overlap time.Duration) (Rotation, error) {
	now = now.UTC()
	if u.PreviousValid(now) {
		return Rotation{}, RotationRunning(u.PreviousUntil)
	}
	from := u.PasswordChangedAt
	if u.RotatedAt.After(from) {
		from = u.RotatedAt
	}
	return Rotation{NewHash: newHash, PreviousHash: u.PasswordHash, RotatedAt: now,
		PreviousUntil: now.Add(overlap), TokensFrom: from}, nil
}

// TokenRefused reports whether a token with claims c, of user u, is
// refused at now: issued before a password change (TokenPredates), or
// before u's last rotation once that rotation's overlap has ended.
// Tokens of the old secret issued during the overlap end with it by
// their own exp (CapExpiry).
func TokenRefused(c Claims, u UserTokens, now time.Time) bool {
	if TokenPredates(c, u.PasswordChanged) {
		return true
	}
	return !u.RotatedAt.IsZero() && !now.Before(u.PreviousUntil) && TokenPredates(c, u.RotatedAt)
}

// UserTokens is what a user's record says of its tokens: when its
// password last changed, and its last rotation and overlap (zero: none).
type UserTokens struct {
	PasswordChanged, RotatedAt, PreviousUntil time.Time
}

// CapExpiry shortens claims issued against a previous secret to the end
// of its overlap: the old secret and what it opened stop together.
func CapExpiry(c Claims, until time.Time) Claims {
	until = until.UTC().Truncate(time.Second)
	if until.Before(c.Expiry) {
		c.Expiry = until
	}
	return c
}

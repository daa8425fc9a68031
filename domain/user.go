package domain

import (
	"time"
)

// User is a partner user of the built-in login.
type User struct {
	Name         string
	NIT          string
	PasswordHash string
	Active       bool
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// PasswordChangedAt is when the password was last changed (users
	// passwd); zero when never. See TokenPredates.
	PasswordChangedAt time.Time
	// PreviousPasswordHash is the secret the last rotation replaced; it
	// opens a login until PreviousUntil (PreviousValid). RotatedAt is
	// when the last rotation ran. All zero: never rotated.
	PreviousPasswordHash string
	RotatedAt            time.Time
	PreviousUntil        time.Time
}

// Tokens is what u's record says of its tokens (TokenRefused).
func (u User) Tokens() UserTokens {
	return UserTokens{PasswordChanged: u.PasswordChangedAt, RotatedAt: u.RotatedAt, PreviousUntil: u.PreviousUntil}
}

// ValidateUserName checks a user name for users add: UserNameBound, 1
// to MaxUserNameBytes printable ASCII characters without spaces. Names
// are compared byte for byte on every store, so "ACME" and "acme" are
// two users.
func ValidateUserName(name string) error {
	ok := len(name) >= 1 && len(name) <= MaxUserNameBytes
	for i := 0; ok && i < len(name); i++ {
		ok = name[i] > ' ' && name[i] <= '~'
	}
	if !ok {
		return NewError(ErrInvalidInput, "invalid_user", "the user name must be "+UserNameBound.En)
	}
	return nil
}

// userNITMessages are ParseNIT's refusals in English, for the operators
// who add users (the report fields' messages stay the partner's Spanish).
var userNITMessages = map[string]string{
	CodeInvalidFormat: "NIT: 9 or 10 digits, optionally followed by a hyphen and the check digit",
	CodeCheckDigit:    "NIT: the check digit does not match the NIT",
}

// NormalizeUserNIT validates a partner's NIT and returns its stored form.
func NormalizeUserNIT(nit string) (string, error) {
	n, fe := ParseNIT(nit)
	if fe != nil {
		msg, ok := userNITMessages[fe.code]
		if !ok {
			msg = "NIT: refused (" + fe.code + ")"
		}
		return "", NewError(ErrInvalidInput, fe.code, msg)
	}
	return n, nil
}

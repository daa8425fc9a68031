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
}

// Limits of what a login attempt may carry (contract §7): anything longer
// is refused before any password work.
const (
	MaxUserNameBytes = 64
	MaxPasswordBytes = 1024
)

// ValidateUserName checks a user name for users add: 1 to 64 printable
// ASCII characters without spaces. Names are compared byte for byte on
// every store, so "ACME" and "acme" are two users.
func ValidateUserName(name string) error {
	if len(name) < 1 || len(name) > MaxUserNameBytes {
		return NewError(ErrInvalidInput, "invalid_user", "the user name must be 1 to 64 characters long")
	}
	for i := 0; i < len(name); i++ {
		if c := name[i]; c <= ' ' || c > '~' {
			return NewError(ErrInvalidInput, "invalid_user", "the user name takes printable ASCII characters without spaces only")
		}
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

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
}

// ValidateUserName checks a user name: 1 to 64 of letters, digits and
// . _ @ -.
func ValidateUserName(name string) error {
	if len(name) < 1 || len(name) > 64 {
		return NewError(ErrInvalidInput, "invalid_user", "el usuario debe tener de 1 a 64 caracteres")
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '@' || c == '-') {
			return NewError(ErrInvalidInput, "invalid_user", "el usuario solo admite letras, dígitos y . _ @ -")
		}
	}
	return nil
}

// NormalizeUserNIT validates a partner's NIT and returns its stored form.
func NormalizeUserNIT(nit string) (string, error) {
	n, fe := ParseNIT(nit)
	if fe != nil {
		return "", NewError(ErrInvalidInput, fe.code, "NIT: "+fe.msg)
	}
	return n, nil
}

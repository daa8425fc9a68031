package ports

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"

	"github.com/lender/disbursementd/domain"
)

// Login is the built-in login service: it checks a user's password and
// issues a token. It is a CredentialExchange in process, and the HTTP
// adapter also serves it at /auth/login for other instances.
type Login struct {
	Users  UserStore
	Hasher PasswordHasher
	Issuer TokenIssuer
	Policy domain.TokenPolicy
	Clock  Clock
}

var _ CredentialExchange = (*Login)(nil)

// Exchange checks the credentials and issues a token. An unknown user, a
// wrong password and an inactive user all give domain.ErrInvalidClient and
// all cost one password comparison.
func (l *Login) Exchange(ctx context.Context, user, password string) (string, error) {
	invalid := domain.NewError(domain.ErrInvalidClient, "invalid_client", "invalid_client")
	if user == "" || password == "" || len(password) > 1024 {
		return "", invalid
	}
	u, err := l.Users.GetUser(ctx, user)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		_ = l.Hasher.Compare(l.Hasher.Dummy(), password)
		return "", invalid.WithCause(fmt.Errorf("unknown user"))
	case err != nil:
		return "", domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", "temporarily_unavailable").WithCause(err)
	}
	if err := l.Hasher.Compare(u.PasswordHash, password); err != nil {
		return "", invalid.WithCause(fmt.Errorf("wrong password"))
	}
	if !u.Active {
		return "", invalid.WithCause(fmt.Errorf("inactive user"))
	}
	if l.Hasher.NeedsRehash(u.PasswordHash) {
		// Bring the hash to the current cost, so that a wrong password for
		// this user costs what an unknown user costs (the dummy's cost).
		// Best effort: the login itself has succeeded.
		if h, err := l.Hasher.Hash(password); err == nil {
			_ = l.Users.SetPasswordHash(ctx, u.Name, h)
		}
	}
	tok, err := l.Issuer.Issue(l.Policy.NewClaims(u, l.Clock.Now(), NewID()))
	if err != nil {
		return "", domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", "temporarily_unavailable").WithCause(err)
	}
	return tok, nil
}

// NewID returns a random 128-bit identifier in hex.
func NewID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails on supported platforms
	return hex.EncodeToString(b[:])
}

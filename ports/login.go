package ports

import (
	"context"
	"crypto/rand"
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
// all cost one password comparison. domain.ErrUnavailable when the store
// cannot answer or no comparison could start in time.
func (l *Login) Exchange(ctx context.Context, user, password string) (string, error) {
	invalid := domain.NewError(domain.ErrInvalidClient, "invalid_client", "invalid_client")
	if user == "" || password == "" || len(user) > domain.MaxUserNameBytes || len(password) > domain.MaxPasswordBytes {
		return "", invalid
	}
	unavailable := func(err error) error {
		return domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", "temporarily_unavailable").WithCause(err)
	}
	u, err := l.Users.GetUser(ctx, user)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		if err := l.Hasher.Compare(ctx, l.Hasher.Dummy(), password); domain.IsKind(err, domain.ErrUnavailable) {
			return "", err
		}
		return "", invalid.WithCause(errors.New("unknown user"))
	case err != nil:
		return "", unavailable(err)
	}
	if err := l.Hasher.Compare(ctx, u.PasswordHash, password); err != nil {
		if domain.IsKind(err, domain.ErrUnavailable) {
			return "", err
		}
		return "", invalid.WithCause(fmt.Errorf("%w: wrong password", errKnownUser))
	}
	if !u.Active {
		return "", invalid.WithCause(fmt.Errorf("%w: inactive", errKnownUser))
	}
	if l.Hasher.NeedsRehash(u.PasswordHash) {
		// Bring the hash to the current cost, so that a wrong password for
		// this user costs what an unknown user costs (the dummy's cost).
		// Best effort: the login itself has succeeded.
		if h, err := l.Hasher.Hash(password); err == nil {
			_ = l.Users.SetPasswordHash(ctx, u.Name, h)
		}
	}
	tok, err := l.Issuer.Issue(l.Policy.NewClaims(u, l.Clock.Now(), rand.Text()))
	if err != nil {
		return "", unavailable(err)
	}
	return tok, nil
}

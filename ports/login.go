package ports

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Login is the built-in login service: it checks a user's password and
// issues a token. It is a CredentialExchange in process, and the HTTP
// adapter also serves it at /auth/login for other instances.
type Login struct {
	users  UserStore
	hasher PasswordHasher
	issuer TokenIssuer
	policy domain.TokenPolicy
	clock  Clock
}

var _ CredentialExchange = (*Login)(nil)

// NewLogin returns the built-in login on the user store, the password
// hasher, the token issuer, the claims' policy and the clock; it refuses
// a missing one, and a policy that domain.TokenPolicy.Validate refuses.
func NewLogin(users UserStore, hasher PasswordHasher, issuer TokenIssuer, policy domain.TokenPolicy, clock Clock) (*Login, error) {
	if users == nil || hasher == nil || issuer == nil || clock == nil {
		return nil, errors.New("ports: NewLogin needs a user store, a password hasher, a token issuer and a clock")
	}
	if err := policy.Validate(); err != nil {
		return nil, fmt.Errorf("ports: NewLogin: %w", err)
	}
	return &Login{users: users, hasher: hasher, issuer: issuer, policy: policy, clock: clock}, nil
}

// Prepare admits every stored user's hash to the hasher
// (PasswordHasher.Admit), inactive users' included, so that from the
// first attempt on an unknown name costs what the dearest stored hash
// costs. serve runs it once the store is ready; domain.ErrUnavailable
// when the store cannot list the users.
func (l *Login) Prepare(ctx context.Context) error {
	users, err := l.users.ListUsers(ctx)
	if err != nil {
		return domain.Unavailable("user store unavailable").WithCause(err)
	}
	for _, u := range users {
		l.hasher.Admit(u.PasswordHash)
	}
	return nil
}

// Hold takes a comparison slot of the hasher's for an attempt's
// comparisons (SlotHolder), when the hasher holds slots; otherwise it
// takes nothing.
func (l *Login) Hold(ctx context.Context) (context.Context, func(), error) {
	if h, ok := l.hasher.(SlotHolder); ok {
		return h.Hold(ctx)
	}
	return ctx, func() {}, nil
}

// Exchange checks the credentials and issues a token. An unknown user, a
// wrong password and an inactive user all give domain.ErrInvalidClient and
// all cost one password comparison, of equal work (PasswordHasher). domain.ErrUnavailable when the store
// cannot answer or no comparison could start in time.
func (l *Login) Exchange(ctx context.Context, user, password string) (string, error) {
	invalid := domain.InvalidClient()
	if !domain.LoginFits(user, password) {
		return "", invalid
	}
	unavailable := func(err error) error {
		return domain.Unavailable("user store unavailable").WithCause(err)
	}
	u, err := l.users.GetUser(ctx, user)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		if err := l.hasher.Compare(ctx, l.hasher.Dummy(), password); domain.IsKind(err, domain.ErrUnavailable) {
			return "", err
		}
		return "", invalid.WithCause(errors.New("unknown user"))
	case err != nil:
		return "", unavailable(err)
	}
	now := l.clock.Now()
	previous, err := l.compare(ctx, u, password, now)
	if err != nil {
		if domain.IsKind(err, domain.ErrUnavailable) {
			return "", err
		}
		return "", invalid.WithCause(fmt.Errorf("%w: wrong password", errKnownUser))
	}
	if !u.Active {
		return "", invalid.WithCause(fmt.Errorf("%w: inactive", errKnownUser))
	}
	claims := l.policy.NewClaims(u, now, rand.Text())
	if previous {
		// The replaced secret of a rotation: what it opens ends with
		// its overlap.
		claims = domain.CapExpiry(claims, u.PreviousUntil)
	} else if l.hasher.NeedsRehash(u.PasswordHash) {
		// Bring the hash to the current cost, so that this user's
		// comparisons need no padding (PasswordHasher.Compare). Best
		// effort: the login itself has succeeded.
		if h, err := l.hasher.Hash(password); err == nil {
			_ = l.users.SetPasswordHash(ctx, u.Name, u.PasswordHash, h)
		}
	}
	tok, err := l.issuer.Issue(claims)
	if err != nil {
		return "", unavailable(err)
	}
	return tok, nil
}

// compare checks password against u's secret, and against the secret
// its last rotation replaced while that one's overlap lasts (previous
// true when that one matched). A user in an overlap pays a second
// comparison for a wrong password: that the user is rotating is no
// secret worth the padding (docs/decisions.md).
func (l *Login) compare(ctx context.Context, u domain.User, password string, now time.Time) (previous bool, err error) {
	err = l.hasher.Compare(ctx, u.PasswordHash, password)
	if err == nil || domain.IsKind(err, domain.ErrUnavailable) || !u.PreviousValid(now) {
		return false, err
	}
	if err := l.hasher.Compare(ctx, u.PreviousPasswordHash, password); err != nil {
		return false, err
	}
	return true, nil
}

package ports

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/lender/disbursementd/domain"
)

// Principal is the partner user a verified token speaks for.
type Principal struct {
	User    string
	NIT     string
	TokenID string
}

// Auth exchanges credentials for tokens and authenticates tokens.
type Auth struct {
	Exchanger CredentialExchange
	Verifier  TokenVerifier
	Policy    domain.TokenPolicy
	Users     UserStore // optional: refuses tokens of deactivated users
	Clock     Clock
	Throttle  *Throttle        // optional: failed attempts per user and address
	Tokens    *TokenCache      // optional: skips RSA verification for known tokens
	Statuses  *UserStatusCache // optional: user active flags, at most Staleness old
}

// Token exchanges credentials for a token, for a client at addr. It never
// hands out a token that it would itself refuse: a token from the upstream
// that does not verify here is an ErrUnavailable (the operator must fix
// the key trust), never passed to the partner. Repeated failures for a user
// or an address give ErrThrottled, with the wait in the error's Detail.
func (a *Auth) Token(ctx context.Context, user, password, addr string) (string, domain.Claims, error) {
	if err := a.CheckThrottle(user, addr); err != nil {
		return "", domain.Claims{}, err
	}
	tok, err := a.Exchanger.Exchange(ctx, user, password)
	if err != nil {
		a.RecordFailure(err, user, addr)
		return "", domain.Claims{}, err
	}
	claims, err := a.verify(tok)
	if err != nil {
		return "", domain.Claims{}, domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", "temporarily_unavailable").
			WithCause(fmt.Errorf("login upstream issued a token this service does not accept: %w", err))
	}
	return tok, claims, nil
}

func (a *Auth) verify(tok string) (domain.Claims, error) {
	now := a.Clock.Now()
	claims, cached := a.Tokens.get(tok, now)
	if !cached {
		var err error
		if claims, err = a.Verifier.Verify(tok); err != nil {
			return domain.Claims{}, err
		}
	}
	if err := a.Policy.Check(claims, now); err != nil {
		return domain.Claims{}, err
	}
	if !cached {
		a.Tokens.put(tok, claims, now)
	}
	return claims, nil
}

// userStatus says whether the store knows the user and whether it is
// active, from the cache when fresh enough.
func (a *Auth) userStatus(ctx context.Context, name string) (userStatus, error) {
	now := a.Clock.Now()
	if s, ok := a.Statuses.get(name, now); ok {
		return s, nil
	}
	u, err := a.Users.GetUser(ctx, name)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		s := userStatus{known: false, at: now}
		a.Statuses.put(name, s)
		return s, nil
	case err != nil:
		return userStatus{}, err
	}
	s := userStatus{known: true, active: u.Active, at: now}
	a.Statuses.put(name, s)
	return s, nil
}

// Authenticate verifies a token and returns the principal it speaks for.
// Errors are of kind domain.ErrInvalidToken, or domain.ErrUnavailable when
// the user store cannot answer.
func (a *Auth) Authenticate(ctx context.Context, tok string) (Principal, error) {
	claims, err := a.verify(tok)
	if err != nil {
		return Principal{}, err
	}
	if a.Users != nil {
		st, err := a.userStatus(ctx, claims.Subject)
		switch {
		case err != nil:
			return Principal{}, domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", domain.MsgStoreFailed).WithCause(err)
		case !st.known:
			// A user of an external login: the store cannot tell.
		case !st.active:
			e := domain.NewError(domain.ErrInvalidToken, "invalid_token", domain.MsgInvalidToken)
			e.Detail = "user_inactive"
			return Principal{}, e
		}
	}
	return Principal{User: claims.Subject, NIT: claims.NIT, TokenID: claims.ID}, nil
}

// CheckThrottle returns ErrThrottled when user or addr failed too often;
// the error's Detail holds the seconds to wait.
func (a *Auth) CheckThrottle(user, addr string) error {
	ok, wait := a.Throttle.Allow(user, addr, a.Clock.Now())
	if ok {
		return nil
	}
	e := domain.NewError(domain.ErrThrottled, "slow_down", "slow_down")
	e.Detail = strconv.Itoa(int(wait.Seconds()) + 1)
	return e
}

// RecordFailure counts a rejected credential (not an outage) against user
// and addr.
func (a *Auth) RecordFailure(err error, user, addr string) {
	if errors.Is(err, domain.ErrInvalidClient) {
		a.Throttle.Fail(user, addr, a.Clock.Now())
	}
}

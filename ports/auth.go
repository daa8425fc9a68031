package ports

import (
	"context"
	"errors"
	"fmt"

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
}

// Token exchanges credentials for a token. It never hands out a token that
// it would itself refuse: a token from the upstream that does not verify
// here is an ErrUnavailable (the operator must fix the key trust), never
// passed to the partner.
func (a *Auth) Token(ctx context.Context, user, password string) (string, domain.Claims, error) {
	tok, err := a.Exchanger.Exchange(ctx, user, password)
	if err != nil {
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
	claims, err := a.Verifier.Verify(tok)
	if err != nil {
		return domain.Claims{}, err
	}
	if err := a.Policy.Check(claims, a.Clock.Now()); err != nil {
		return domain.Claims{}, err
	}
	return claims, nil
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
		u, err := a.Users.GetUser(ctx, claims.Subject)
		switch {
		case errors.Is(err, domain.ErrNotFound):
			// A user of an external login: the store cannot tell.
		case err != nil:
			return Principal{}, domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", domain.MsgStoreFailed).WithCause(err)
		case !u.Active:
			e := domain.NewError(domain.ErrInvalidToken, "invalid_token", domain.MsgInvalidToken)
			e.Detail = "user_inactive"
			return Principal{}, e
		}
	}
	return Principal{User: claims.Subject, NIT: claims.NIT, TokenID: claims.ID}, nil
}

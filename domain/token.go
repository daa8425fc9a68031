package domain

import (
	"errors"
	"time"
)

// Claims are the claims of an access token.
type Claims struct {
	Issuer    string
	Subject   string // the partner user name
	Audience  []string
	IssuedAt  time.Time
	NotBefore time.Time
	Expiry    time.Time
	ID        string // jti
	NIT       string
}

// TokenPolicy holds the token rules of the contract (§5).
type TokenPolicy struct {
	Issuer   string
	Audience string
	Lifetime time.Duration // issued lifetime, and the longest accepted
	Leeway   time.Duration
}

// Validate checks the policy against the contract (§5): an issuer, an
// audience, and a lifetime that CheckTokenLifetime accepts.
func (p TokenPolicy) Validate() error {
	if p.Issuer == "" || p.Audience == "" {
		return errors.New("a token policy needs an issuer and an audience")
	}
	return CheckTokenLifetime(p.Lifetime)
}

// NewClaims returns the claims for a token issued to u at now.
func (p TokenPolicy) NewClaims(u User, now time.Time, jti string) Claims {
	now = now.UTC().Truncate(time.Second)
	return Claims{
		Issuer: p.Issuer, Subject: u.Name, Audience: []string{p.Audience},
		IssuedAt: now, NotBefore: now, Expiry: now.Add(p.Lifetime),
		ID: jti, NIT: u.NIT,
	}
}

// Check applies the claim rules to a token whose signature was verified:
// exp, iat and sub present, nbf and exp against now with leeway, iat not
// in the future, iss and aud, and a lifetime no longer than the policy's.
// It is the one claim rule: the key adapter checks the form and the
// signature only. The error is an *Error of kind ErrInvalidToken whose
// Detail says which rule failed (the names the 401's detail has always
// carried).
func (p TokenPolicy) Check(c Claims, now time.Time) error {
	fail := func(detail string) error {
		return InvalidToken(detail)
	}
	switch {
	case c.Expiry.IsZero(), c.IssuedAt.IsZero(), c.Subject == "":
		return fail("missing_claim")
	case !now.Before(c.Expiry.Add(p.Leeway)):
		return fail("expired")
	case !c.NotBefore.IsZero() && now.Add(p.Leeway).Before(c.NotBefore):
		return fail("not_yet_valid")
	case now.Add(p.Leeway).Before(c.IssuedAt):
		return fail("issued_at")
	case c.Expiry.Sub(c.IssuedAt) > p.Lifetime:
		return fail("claims")
	case c.Issuer != p.Issuer:
		return fail("issuer")
	case !contains(c.Audience, p.Audience):
		return fail("audience")
	}
	return nil
}

// TokenPredates reports whether a token with claims c was issued before
// the second of a password change at changed (zero: never changed), and
// so must be refused. iat has whole seconds, so a token issued in that
// second is kept: refusing it would refuse a token issued just after.
func TokenPredates(c Claims, changed time.Time) bool {
	return !changed.IsZero() && c.IssuedAt.Before(changed.Truncate(time.Second))
}

package jwtkeys

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jws"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/lender/disbursementd/domain"
)

// Verify checks a token and returns its claims. The token must be in
// canonical compact form (canonicalCompact); its header, as jwx reads it,
// must name RS256 and a trusted kid, or no kid when one key is trusted,
// and carry no crit or b64 (keyProvider); the signature must verify; and
// exp, iat and nbf, when present, must be JSON numbers (numericDates).
// Errors are *domain.Error of kind domain.ErrInvalidToken whose Detail
// names the rule broken. Verify judges no claim: the claim rules (which
// claims must be there, times, issuer, audience, lifetime) are
// domain.TokenPolicy.Check's, which the caller applies.
func (k *Keys) Verify(token string) (domain.Claims, error) {
	if err := canonicalCompact(token); err != nil {
		return domain.Claims{}, invalid("malformed", err)
	}
	tok, err := jwt.Parse([]byte(token),
		jwt.WithKeyProvider(k.keys),
		jwt.WithToken(&numericDates{Token: jwt.New()}),
		jwt.WithValidate(false),
	)
	if err != nil {
		return domain.Claims{}, invalid(detailOf(err), err)
	}
	var c domain.Claims
	c.Issuer, _ = tok.Issuer()
	c.Subject, _ = tok.Subject()
	c.Audience, _ = tok.Audience()
	c.IssuedAt, _ = tok.IssuedAt()
	c.NotBefore, _ = tok.NotBefore()
	c.Expiry, _ = tok.Expiration()
	c.ID, _ = tok.JwtID()
	_ = tok.Get("nit", &c.NIT) // absent for tokens of logins that do not know it
	return c, nil
}

// keyProvider gives jwx the key for a signature, chosen from the protected
// header as jwx parsed it: that parse is the only reading of the header.
// It stands in for jwt.WithKeySet, whose refusals do not say which rule
// failed. jws.Verify, which jwt.Parse calls with a key provider, checks
// crit only when asked and honours b64; this refuses both.
type keyProvider struct {
	byKid map[string]*rsa.PublicKey // the trusted keys
	only  *rsa.PublicKey            // the key for a token without kid: nil unless one key is trusted
}

var _ jws.KeyProvider = (*keyProvider)(nil)

// FetchKeys offers RS256 with the key the header's kid names, or without a
// kid the only trusted key. A header with another alg, with crit or b64,
// or with an unknown kid gets no key and a refusal.
func (p *keyProvider) FetchKeys(_ context.Context, sink jws.KeySink, sig *jws.Signature, _ *jws.Message) error {
	h := sig.ProtectedHeaders()
	if h == nil {
		return refuse("malformed", errors.New("no protected header"))
	}
	if alg, _ := h.Algorithm(); alg != jwa.RS256() {
		return refuse("algorithm", fmt.Errorf("alg %q", alg))
	}
	// crit names extensions we would have to understand (RFC 7515
	// §4.1.11); b64 changes what is signed (RFC 7797). We issue neither.
	if h.Has(jws.CriticalKey) || h.Has(jws.B64Key) {
		return refuse("malformed", errors.New("crit or b64 header"))
	}
	kid, _ := h.KeyID()
	key := p.only
	switch {
	case kid != "":
		if key = p.byKid[kid]; key == nil {
			return refuse("unknown_key", fmt.Errorf("kid %q", kid))
		}
	case key == nil:
		return refuse("unknown_key", errors.New("no kid and several trusted keys"))
	}
	sink.Key(jwa.RS256(), key)
	return nil
}

// refusal is a reason of ours to refuse a token, returned from inside
// jwx (key provider, claims decoding) and found again with errors.As.
type refusal struct {
	detail string
	err    error
}

func refuse(detail string, err error) error { return &refusal{detail: detail, err: err} }

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

func invalid(detail string, cause error) error {
	e := domain.InvalidToken(detail)
	if cause != nil {
		return e.WithCause(cause)
	}
	return e
}

// detailOf names the rule a token broke, for the 401's detail.
func detailOf(err error) string {
	var r *refusal
	switch {
	case errors.As(err, &r):
		return r.detail
	case errors.Is(err, jws.ParseError()):
		return "malformed" // a header jwx cannot read, e.g. an alg it does not know
	}
	return "signature"
}

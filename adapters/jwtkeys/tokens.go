package jwtkeys

import (
	"crypto/rsa"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
	"github.com/lestrrat-go/jwx/v3/jwt"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Keys signs tokens with one private key and verifies them against a set
// of trusted public keys (the signer's own and, during a rotation, others).
type Keys struct {
	signer jwk.Key // nil for a verify-only instance
	kid    string
	set    jwk.Set // trusted public keys, each with kid and alg
	policy domain.TokenPolicy
	clock  ports.Clock // the one clock exp, iat and nbf are checked against
}

var (
	_ ports.TokenIssuer   = (*Keys)(nil)
	_ ports.TokenVerifier = (*Keys)(nil)
)

// New builds Keys from a private key (may be nil) and extra trusted
// public keys. The private key's own public key is always trusted. Tokens
// are verified against clock, the same clock the rest of the service uses.
func New(priv *rsa.PrivateKey, trusted []*rsa.PublicKey, policy domain.TokenPolicy, clock ports.Clock) (*Keys, error) {
	if clock == nil {
		return nil, errors.New("no clock")
	}
	k := &Keys{set: jwk.NewSet(), policy: policy, clock: clock}
	seen := map[string]bool{}
	add := func(pub *rsa.PublicKey) (string, error) {
		j, err := publicJWK(pub)
		if err != nil {
			return "", err
		}
		kid, _ := j.KeyID()
		if !seen[kid] {
			seen[kid] = true
			if err := k.set.AddKey(j); err != nil {
				return "", err
			}
		}
		return kid, nil
	}
	if priv != nil {
		if priv.N.BitLen() < KeyBits {
			return nil, fmt.Errorf("private key of %d bits, want at least %d", priv.N.BitLen(), KeyBits)
		}
		kid, err := add(&priv.PublicKey)
		if err != nil {
			return nil, err
		}
		s, err := jwk.Import(priv)
		if err != nil {
			return nil, fmt.Errorf("import private key: %w", err)
		}
		if err := s.Set(jwk.KeyIDKey, kid); err != nil {
			return nil, err
		}
		k.signer, k.kid = s, kid
	}
	for _, pub := range trusted {
		if _, err := add(pub); err != nil {
			return nil, err
		}
	}
	if k.set.Len() == 0 {
		return nil, errors.New("no trusted keys")
	}
	return k, nil
}

// KeyID returns the kid of the signing key.
func (k *Keys) KeyID() string { return k.kid }

// JWKS returns the trusted public keys as a JWKS document.
func (k *Keys) JWKS() ([]byte, error) { return json.Marshal(k.set) }

// Issue signs claims with RS256 under the signing key's kid.
func (k *Keys) Issue(c domain.Claims) (string, error) {
	if k.signer == nil {
		return "", errors.New("no signing key")
	}
	tok, err := jwt.NewBuilder().
		Issuer(c.Issuer).Subject(c.Subject).Audience(c.Audience).
		IssuedAt(c.IssuedAt).NotBefore(c.NotBefore).Expiration(c.Expiry).
		JwtID(c.ID).Claim("nit", c.NIT).Build()
	if err != nil {
		return "", fmt.Errorf("build token: %w", err)
	}
	signed, err := jwt.Sign(tok, jwt.WithKey(jwa.RS256(), k.signer))
	if err != nil {
		return "", fmt.Errorf("sign token: %w", err)
	}
	return string(signed), nil
}

type header struct {
	Alg  string   `json:"alg"`
	Kid  string   `json:"kid"`
	Crit []string `json:"crit"`
}

func invalid(detail string, cause error) error {
	e := domain.NewError(domain.ErrInvalidToken, "invalid_token", domain.MsgInvalidToken)
	e.Detail = detail
	if cause != nil {
		return e.WithCause(cause)
	}
	return e
}

// Verify checks the token's header (RS256 only, a known kid; no kid only
// when one key is trusted), its signature, and its claims (exp and iat
// required, nbf, iss, aud, a lifetime of at most the policy's) through jwx.
// The caller applies domain.TokenPolicy.Check as well.
func (k *Keys) Verify(token string) (domain.Claims, error) {
	if err := canonicalCompact(token); err != nil {
		return domain.Claims{}, invalid("malformed", err)
	}
	raw, err := base64.RawURLEncoding.DecodeString(token[:strings.IndexByte(token, '.')])
	var h header
	if err != nil || json.Unmarshal(raw, &h) != nil {
		return domain.Claims{}, invalid("malformed", err)
	}
	if h.Alg != "RS256" {
		return domain.Claims{}, invalid("algorithm", fmt.Errorf("alg %q", h.Alg))
	}
	if len(h.Crit) > 0 {
		return domain.Claims{}, invalid("malformed", fmt.Errorf("crit header %v", h.Crit))
	}
	var key jwk.Key
	switch {
	case h.Kid != "":
		var ok bool
		if key, ok = k.set.LookupKeyID(h.Kid); !ok {
			return domain.Claims{}, invalid("unknown_key", fmt.Errorf("kid %q", h.Kid))
		}
	case k.set.Len() == 1:
		key, _ = k.set.Key(0)
	default:
		return domain.Claims{}, invalid("unknown_key", errors.New("no kid and several trusted keys"))
	}
	tok, err := jwt.Parse([]byte(token),
		jwt.WithKey(jwa.RS256(), key),
		jwt.WithValidate(true),
		jwt.WithRequiredClaim(jwt.ExpirationKey),
		jwt.WithRequiredClaim(jwt.IssuedAtKey),
		jwt.WithRequiredClaim(jwt.SubjectKey),
		jwt.WithIssuer(k.policy.Issuer),
		jwt.WithAudience(k.policy.Audience),
		jwt.WithAcceptableSkew(k.policy.Leeway),
		jwt.WithMaxDelta(k.policy.Lifetime, jwt.ExpirationKey, jwt.IssuedAtKey),
		jwt.WithClock(k.clock),
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

func detailOf(err error) string {
	switch {
	case errors.Is(err, jwt.TokenExpiredError()):
		return "expired"
	case errors.Is(err, jwt.TokenNotYetValidError()):
		return "not_yet_valid"
	case errors.Is(err, jwt.InvalidIssuerError()):
		return "issuer"
	case errors.Is(err, jwt.InvalidAudienceError()):
		return "audience"
	case errors.Is(err, jwt.InvalidIssuedAtError()):
		return "issued_at"
	case errors.Is(err, jwt.MissingRequiredClaimError()):
		return "missing_claim"
	case errors.Is(err, jwt.ValidateError()):
		return "claims"
	}
	return "signature"
}

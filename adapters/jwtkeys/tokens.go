package jwtkeys

import (
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"

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
	set    jwk.Set      // trusted public keys, each with kid and alg
	keys   *keyProvider // the same keys by kid, for Verify
	clock  ports.Clock  // dates the readiness check's probe token
}

var (
	_ ports.TokenIssuer   = (*Keys)(nil)
	_ ports.TokenVerifier = (*Keys)(nil)
)

// New builds Keys from a private key (may be nil) and extra trusted
// public keys. The private key's own public key is always trusted. Keys
// check a token's form, header and signature; the claim rules are
// domain.TokenPolicy's, applied by the caller. clock dates the readiness
// check's probe token (Check); New refuses a nil one.
func New(priv *rsa.PrivateKey, trusted []*rsa.PublicKey, clock ports.Clock) (*Keys, error) {
	if clock == nil {
		return nil, errors.New("jwtkeys: New needs a clock")
	}
	k := &Keys{set: jwk.NewSet(), keys: &keyProvider{byKid: map[string]*rsa.PublicKey{}}, clock: clock}
	add := func(pub *rsa.PublicKey) (string, error) {
		j, err := publicJWK(pub)
		if err != nil {
			return "", err
		}
		kid, _ := j.KeyID()
		if _, seen := k.keys.byKid[kid]; !seen {
			k.keys.byKid[kid] = pub
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
	switch len(k.keys.byKid) {
	case 0:
		return nil, errors.New("no trusted keys")
	case 1:
		for _, pub := range k.keys.byKid {
			k.keys.only = pub
		}
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

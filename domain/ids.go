package domain

import (
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
	"regexp"
	"strings"
)

// endpointIDEncoding writes an endpoint id's random part: lower-case
// base32 without padding.
var endpointIDEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// EndpointIDRandomBytes is how many random bytes an endpoint id holds.
const EndpointIDRandomBytes = 15

// NewEndpointID returns the public id of an endpoint made from
// EndpointIDRandomBytes random bytes: "we_" and 24 letters and digits.
// Random, not a count, so ids tell a partner nothing of others.
func NewEndpointID(random []byte) string { return "we_" + endpointIDEncoding.EncodeToString(random) }

var endpointIDForm = regexp.MustCompile(`^we_[a-z2-7]{24}$`)

// ValidEndpointID reports whether id is of the form NewEndpointID makes;
// a path holding anything else is answered 404 before any store call.
func ValidEndpointID(id string) bool { return endpointIDForm.MatchString(id) }

// backofficeSecretPrefix starts every back-office secret.
const backofficeSecretPrefix = "bo_"

// BackofficeSecretBytes is how many random bytes a back-office secret
// holds.
const BackofficeSecretBytes = 32

// NewBackofficeSecret returns a back-office client's secret made from
// BackofficeSecretBytes random bytes: "bo_" and their base64url.
func NewBackofficeSecret(random []byte) string {
	return backofficeSecretPrefix + base64.RawURLEncoding.EncodeToString(random)
}

// BackofficeSecretHash is what the store keeps of a back-office secret:
// its SHA-256, in hex. The secret is 32 random bytes, so a plain hash is
// as good as a slow one and lets the store find the client by it. "" for
// anything that is not a secret NewBackofficeSecret makes.
func BackofficeSecretHash(secret string) string {
	b64, ok := strings.CutPrefix(secret, backofficeSecretPrefix)
	if !ok {
		return ""
	}
	if b, err := base64.RawURLEncoding.Strict().DecodeString(b64); err != nil || len(b) != BackofficeSecretBytes {
		return ""
	}
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

var backofficeNameForm = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]{0,63}$`)

// BackofficeNameBound is what a back-office client's name must be.
var BackofficeNameBound = Bound{En: "1 to 64 of a-z, 0-9, '.', '_' and '-', starting with a letter or digit"}

// CheckBackofficeName is the rule of a back-office client's name.
func CheckBackofficeName(name string) error {
	if !backofficeNameForm.MatchString(name) {
		return NewError(ErrInvalidInput, "invalid_name", "back-office client name "+quoteClip(name)+": "+BackofficeNameBound.En)
	}
	return nil
}

package jwtkeys

import (
	"errors"
	"fmt"
	"strings"
)

// maxTokenBytes bounds a token before anything decodes it. The service's
// own tokens are under 1 KiB.
const maxTokenBytes = 8192

// base64URL maps a byte to its value in the base64url alphabet (RFC 4648
// §5), or to 0xff when the byte is not in it.
var base64URL = func() (t [256]byte) {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	for i := range t {
		t[i] = 0xff
	}
	for i := range len(alphabet) {
		t[alphabet[i]] = byte(i)
	}
	return t
}()

// canonicalCompact checks that token is a JWS in canonical compact form:
// at most maxTokenBytes, three parts, each base64url without padding,
// without characters outside the alphabet (not even newlines, which Go's
// decoders skip) and with the unused bits of its last character zero.
// jwx decodes more leniently (padding, the standard alphabet, set unused
// bits), so without this check one signed token would verify under many
// spellings, each a new entry in the verified-token cache.
func canonicalCompact(token string) error {
	if len(token) > maxTokenBytes {
		return fmt.Errorf("token of %d bytes, more than %d", len(token), maxTokenBytes)
	}
	parts := 0
	for part := range strings.SplitSeq(token, ".") {
		if parts++; parts > 3 {
			break
		}
		if err := canonicalPart(part); err != nil {
			return fmt.Errorf("part %d: %w", parts, err)
		}
	}
	if parts != 3 {
		return errors.New("not three parts")
	}
	return nil
}

// canonicalPart checks one part: the encoding that base64.RawURLEncoding
// writes for some bytes, and no other (RFC 4648 §3.5: the pad bits are
// zero). An empty part is canonical (empty bytes); jwx judges it.
func canonicalPart(s string) error {
	var last byte
	for i := range len(s) {
		if last = base64URL[s[i]]; last == 0xff {
			return fmt.Errorf("byte %#02x at %d is not base64url", s[i], i)
		}
	}
	switch len(s) % 4 {
	case 1:
		return fmt.Errorf("%d characters is no base64 length", len(s))
	case 2: // 12 bits hold one byte
		if last&0x0f != 0 {
			return errors.New("unused bits set")
		}
	case 3: // 18 bits hold two bytes
		if last&0x03 != 0 {
			return errors.New("unused bits set")
		}
	}
	return nil
}

package jwtkeys

import (
	"crypto"
	"crypto/rand"
	"crypto/rsa"
	"crypto/sha256"
	"encoding/base64"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
)

// The tokens of these tests are written byte by byte and signed with
// crypto/rsa, not with jwx: the header and claims are exactly what the
// test says (member order, case, duplicates, JSON types), and a jwx bug
// cannot make the forgery and the check agree.

// testKeys are two RSA keys for the whole test binary: generating a
// 2048-bit key takes up to a second.
var testKeys = sync.OnceValue(func() [2]*rsa.PrivateKey {
	var ks [2]*rsa.PrivateKey
	for i := range ks {
		k, err := rsa.GenerateKey(rand.Reader, KeyBits)
		if err != nil {
			panic(err)
		}
		ks[i] = k
	}
	return ks
})

// testNow is the time of the fixed clock the verifiers of these tests use.
var testNow = time.Date(2025, 3, 14, 9, 26, 53, 0, time.UTC)

// mustKeys returns Keys signing with the first test key at testNow and
// trusting the first n test keys (1 or 2).
func mustKeys(tb testing.TB, n int) *Keys {
	tb.Helper()
	ks := testKeys()
	var trusted []*rsa.PublicKey
	for _, k := range ks[1:n] {
		trusted = append(trusted, &k.PublicKey)
	}
	k, err := New(ks[0], trusted, sysclock.Clock{})
	if err != nil {
		tb.Fatal(err)
	}
	return k
}

func b64(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

// forge signs header and claims (JSON text, used as they are) with RS256
// under key, as compact serialization.
func forge(tb testing.TB, key *rsa.PrivateKey, header, claims string) string {
	tb.Helper()
	input := b64(header) + "." + b64(claims)
	sum := sha256.Sum256([]byte(input))
	sig, err := rsa.SignPKCS1v15(nil, key, crypto.SHA256, sum[:])
	if err != nil {
		tb.Fatal(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// rs256 is the header of a good token under kid.
func rs256(kid string) string { return `{"alg":"RS256","kid":"` + kid + `","typ":"JWT"}` }

// claimsJSON writes the claims of a good token issued at testNow. Each
// change is a member name and its raw JSON value, replacing the member or
// adding it at the end; an empty value removes the member.
func claimsJSON(change ...string) string {
	now := testNow.Unix()
	members := [][2]string{
		{"iss", `"disbursementd"`}, {"sub", `"acme"`}, {"aud", `["partner-api"]`},
		{"iat", fmt.Sprint(now)}, {"nbf", fmt.Sprint(now)}, {"exp", fmt.Sprint(now + 24*3600)},
		{"jti", `"j-1"`}, {"nit", `"900123456-8"`},
	}
next:
	for i := 0; i+1 < len(change); i += 2 {
		for j := range members {
			if members[j][0] == change[i] {
				members[j][1] = change[i+1]
				continue next
			}
		}
		members = append(members, [2]string{change[i], change[i+1]})
	}
	var b strings.Builder
	b.WriteByte('{')
	for _, m := range members {
		if m[1] == "" {
			continue
		}
		if b.Len() > 1 {
			b.WriteByte(',')
		}
		b.WriteString(`"` + m[0] + `":` + m[1]) // names as written: a test may escape one
	}
	b.WriteByte('}')
	return b.String()
}

// kidOf is the kid New gives a public key.
func kidOf(tb testing.TB, pub *rsa.PublicKey) string {
	tb.Helper()
	j, err := publicJWK(pub)
	if err != nil {
		tb.Fatal(err)
	}
	kid, _ := j.KeyID()
	return kid
}

// part returns part i (0 header, 1 payload, 2 signature) of a token.
func part(token string, i int) string { return strings.Split(token, ".")[i] }

// withPart returns token with part i replaced.
func withPart(token string, i int, s string) string {
	p := strings.Split(token, ".")
	p[i] = s
	return strings.Join(p, ".")
}

// padded is the part with the '=' padding of standard base64; the test
// fails if the part's length needs none, since the case would test nothing.
func padded(tb testing.TB, s string) string {
	tb.Helper()
	switch len(s) % 4 {
	case 2:
		return s + "=="
	case 3:
		return s + "="
	}
	tb.Fatalf("fixture: a part of %d characters takes no padding", len(s))
	return ""
}

// flippedTail is the part with the unused low bits of its last character
// set: a second spelling of the same bytes for a lax decoder. The test
// fails if the part's length leaves no unused bits.
func flippedTail(tb testing.TB, s string) string {
	tb.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	v := strings.IndexByte(alphabet, s[len(s)-1])
	switch len(s) % 4 {
	case 2: // 12 bits for one byte: 4 unused
		v |= 0x0f
	case 3: // 18 bits for two bytes: 2 unused
		v |= 0x03
	default:
		tb.Fatalf("fixture: a part of %d characters has no unused bits", len(s))
	}
	return s[:len(s)-1] + alphabet[v:v+1]
}

// stdAlphabet respells a base64url part in the standard alphabet, which a
// decoder that guesses the alphabet reads as the same bytes.
func stdAlphabet(tb testing.TB, s string) string {
	tb.Helper()
	out := strings.NewReplacer("-", "+", "_", "/").Replace(s)
	if out == s {
		tb.Fatal("fixture: the part has no '-' or '_' to respell")
	}
	return out
}

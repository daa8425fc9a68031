package jwtkeys

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestVerifyRefusesRespelledTokens: one signed token has one spelling.
// A lax base64 decoder reads padding, set unused bits, the standard
// alphabet or embedded newlines as the same bytes, so each respelling
// would verify and be cached as a new token.
func TestVerifyRefusesRespelledTokens(t *testing.T) {
	k := mustKeys(t, 2)
	own := testKeys()[0]
	kid := k.KeyID()
	good := forge(t, own, rs256(kid), claimsJSON())
	if _, err := k.Verify(good); err != nil {
		t.Fatalf("fixture: %v", err)
	}
	// A payload whose encoding ends mid-group, so it can be padded.
	padClaims := claimsJSON()
	for n := 0; len(b64(padClaims))%4 == 0; n++ {
		padClaims = claimsJSON("jti", strconv.Quote("j-"+strings.Repeat("x", n)))
	}
	padTok := forge(t, own, rs256(kid), padClaims)
	// A signature with '-' or '_' in it, so it can be respelled.
	stdTok := good
	for n := 0; !strings.ContainsAny(part(stdTok, 2), "-_"); n++ {
		stdTok = forge(t, own, rs256(kid), claimsJSON("jti", strconv.Quote(fmt.Sprint("j-", n))))
	}
	sig := part(good, 2)
	for _, tt := range []struct{ name, token string }{
		{"signature with == appended", good + "=="},
		{"signature with its unused last bits set", withPart(good, 2, flippedTail(t, sig))},
		{"signature in the standard alphabet", withPart(stdTok, 2, stdAlphabet(t, part(stdTok, 2)))},
		{"signature with a newline inside", withPart(good, 2, sig[:100]+"\n"+sig[100:])},
		{"header with padding", withPart(good, 0, padded(t, part(good, 0)))},
		{"header with its unused last bits set", withPart(good, 0, flippedTail(t, part(good, 0)))},
		{"payload with padding", withPart(padTok, 1, padded(t, part(padTok, 1)))},
		{"payload with its unused last bits set", withPart(padTok, 1, flippedTail(t, part(padTok, 1)))},
		{"newline after the token", good + "\n"},
		{"space before the token", " " + good},
		{"character outside the alphabet", withPart(good, 1, part(good, 1)[:10]+"*"+part(good, 1)[11:])},
		{"two parts", part(good, 0) + "." + part(good, 1)},
		{"four parts", good + "." + sig},
		{"empty", ""},
		{"JSON serialization", `{"payload":"` + part(good, 1) + `","protected":"` + part(good, 0) + `","signature":"` + sig + `"}`},
		{"over 8 KiB", forge(t, own, rs256(kid), claimsJSON("pad", strconv.Quote(strings.Repeat("x", 6200))))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := k.Verify(tt.token)
			wantRefused(t, err, "malformed")
		})
	}
}

// TestCanonicalPartIsStrictBase64URL: canonicalPart accepts exactly what
// base64.RawURLEncoding.Strict() decodes, less newlines (which the
// decoder skips), over every string of up to five characters from a set
// that has pad bits clear and set, padding, the standard alphabet's
// characters, a newline and a dot.
func TestCanonicalPartIsStrictBase64URL(t *testing.T) {
	const chars = "AQEB-_+/=\n." // A=0, Q=16, E=4, B=1: pad bits clear or set
	strict := base64.RawURLEncoding.Strict()
	var walk func(s string)
	walk = func(s string) {
		_, err := strict.DecodeString(s)
		want := err == nil && !strings.ContainsAny(s, "\r\n")
		if got := canonicalPart(s) == nil; got != want {
			t.Fatalf("canonicalPart(%q) accepts: %v, strict decoding: %v", s, got, want)
		}
		if len(s) < 5 {
			for i := range len(chars) {
				walk(s + chars[i:i+1])
			}
		}
	}
	walk("")
}

package jwtkeys

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"testing"
)

// TestVerifyReadsTheHeaderOnce: the key and algorithm come from the header
// as jwx reads it (members matched exactly), never from a looser reader.
func TestVerifyReadsTheHeaderOnce(t *testing.T) {
	k := mustKeys(t, 2)
	ks := testKeys()
	own, kid := ks[0], k.KeyID()
	claims := claimsJSON()
	input := func(header string) string { return b64(header) + "." + b64(claims) }
	hs256 := func(header string, secret []byte) string {
		m := hmac.New(sha256.New, secret)
		m.Write([]byte(input(header)))
		return input(header) + "." + base64.RawURLEncoding.EncodeToString(m.Sum(nil))
	}
	jwks, _ := k.JWKS()
	for _, tt := range []struct{ name, token, detail string }{
		{"kid bogus with KID ours", forge(t, own, `{"alg":"RS256","kid":"bogus","KID":"`+kid+`"}`, claims), "unknown_key"},
		{"only KID, two keys trusted", forge(t, own, `{"alg":"RS256","KID":"`+kid+`"}`, claims), "unknown_key"},
		{"ALG in capitals, no alg", forge(t, own, `{"ALG":"RS256","kid":"`+kid+`"}`, claims), "algorithm"},
		{"alg none", input(`{"alg":"none"}`) + ".", "algorithm"},
		{"alg none under our kid", input(`{"alg":"none","kid":"`+kid+`"}`) + ".", "algorithm"},
		{"HS256 keyed with our JWKS", hs256(`{"alg":"HS256","kid":"`+kid+`"}`, jwks), "algorithm"},
		{"RS384", forge(t, own, `{"alg":"RS384","kid":"`+kid+`"}`, claims), "algorithm"},
		{"PS256", forge(t, own, `{"alg":"PS256","kid":"`+kid+`"}`, claims), "algorithm"},
		{"no alg", forge(t, own, `{"kid":"`+kid+`"}`, claims), "algorithm"},
		{"alg jwx does not know", forge(t, own, `{"alg":"XS256","kid":"`+kid+`"}`, claims), "malformed"},
		{"header not JSON", forge(t, own, `alg=RS256`, claims), "malformed"},
		{"crit", forge(t, own, `{"alg":"RS256","kid":"`+kid+`","crit":["exp"],"exp":1}`, claims), "malformed"},
		{"b64 false", forge(t, own, `{"alg":"RS256","kid":"`+kid+`","b64":false}`, claims), "malformed"},
		{"unknown kid", forge(t, own, rs256("not-a-kid"), claims), "unknown_key"},
		{"no kid, two keys trusted", forge(t, own, `{"alg":"RS256"}`, claims), "unknown_key"},
		{"the other trusted key under our kid", forge(t, ks[1], rs256(kid), claims), "signature"},
		{"tampered payload", withPart(forge(t, own, rs256(kid), claims), 1, b64(claimsJSON("sub", `"admin"`))), "signature"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := k.Verify(tt.token)
			wantRefused(t, err, tt.detail)
		})
	}
}

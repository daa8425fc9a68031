package e2e

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/lender/disbursementd/adapters/jwtkeys"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// The attack tokens are forged with golang-jwt, a library independent of
// the one the service verifies with (lestrrat-go/jwx), so a shared bug
// cannot hide.

func mustReadKey(t *testing.T, path string) *rsa.PrivateKey {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	block, _ := pem.Decode(data)
	k, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return k.(*rsa.PrivateKey)
}

func claims(now time.Time, mutate func(jwt.MapClaims)) jwt.MapClaims {
	c := jwt.MapClaims{"iss": "disbursementd", "aud": []string{"partner-api"}, "sub": testkit.Partner, "nit": testkit.Nit,
		"iat": now.Unix(), "nbf": now.Unix(), "exp": now.Add(24 * time.Hour).Unix(), "jti": "forged"}
	if mutate != nil {
		mutate(c)
	}
	return c
}

func sign(t *testing.T, method jwt.SigningMethod, key any, kid string, c jwt.MapClaims) string {
	t.Helper()
	tok := jwt.NewWithClaims(method, c)
	if kid != "" {
		tok.Header["kid"] = kid
	}
	s, err := tok.SignedString(key)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// signParts signs a header and claims written by hand (JSON text, used
// byte for byte: member order, case, duplicates) with RS256.
func signParts(t *testing.T, key *rsa.PrivateKey, header, claims string) string {
	t.Helper()
	input := base64.RawURLEncoding.EncodeToString([]byte(header)) + "." + base64.RawURLEncoding.EncodeToString([]byte(claims))
	sig, err := jwt.SigningMethodRS256.Sign(input, key)
	if err != nil {
		t.Fatal(err)
	}
	return input + "." + base64.RawURLEncoding.EncodeToString(sig)
}

// respell replaces part i (0 header, 1 payload, 2 signature) of a token
// with another spelling of the same bytes: with base64 padding, or with
// the unused low bits of its last character set. A lenient decoder reads
// both as the original, so the signature still matches. The test fails
// if the part's length leaves no room for the respelling.
func respell(t *testing.T, token string, i int, how string) string {
	t.Helper()
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_"
	parts := strings.Split(token, ".")
	p := parts[i]
	if len(p)%4 == 0 {
		t.Fatalf("fixture: part %d of %d characters cannot be respelled", i, len(p))
	}
	switch how {
	case "padding":
		p += strings.Repeat("=", 4-len(p)%4)
	case "unused bits":
		unused := 0x0f // 2 characters hold 1 byte: 4 bits unused
		if len(p)%4 == 3 {
			unused = 0x03 // 3 characters hold 2 bytes: 2 bits unused
		}
		v := strings.IndexByte(alphabet, p[len(p)-1]) | unused
		p = p[:len(p)-1] + alphabet[v:v+1]
	}
	parts[i] = p
	return strings.Join(parts, ".")
}

func TestForgedTokensAreRefused(t *testing.T) {
	t.Parallel()
	// Two trusted keys, as during a rotation, so "no kid" is ambiguous.
	other := t.TempDir()
	if _, err := jwtkeys.GenerateKeyFiles(filepath.Join(other, "private.pem"), filepath.Join(other, "public.pem")); err != nil {
		t.Fatal(err)
	}
	in := testkit.MustStart(t, func(c *config.Config) { c.Auth.PublicKeysFile = filepath.Join(other, "public.pem") })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	good := in.Token(t, testkit.Partner, testkit.Password)
	own := mustReadKey(t, in.Config.Auth.PrivateKeyFile)
	kid := in.Keys.KeyID()
	stranger, _ := rsa.GenerateKey(rand.Reader, 2048)
	pubDER, _ := x509.MarshalPKIXPublicKey(&own.PublicKey)
	pubPEM := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER})
	now := time.Now()

	parts := strings.Split(good, ".")
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	tampered := parts[0] + "." + base64.RawURLEncoding.EncodeToString([]byte(strings.Replace(string(payload), `"sub":"acme"`, `"sub":"admin"`, 1))) + "." + parts[2]
	noneTok, _ := jwt.NewWithClaims(jwt.SigningMethodNone, claims(now, nil)).SignedString(jwt.UnsafeAllowNoneSignatureType)
	// Good claims as JSON text, of a length whose encoding ends part-way
	// through a group, so that the payload can carry padding.
	var claimsText string
	for n := 0; len(claimsText)%3 == 0; n++ {
		b, _ := json.Marshal(claims(now, func(c jwt.MapClaims) { c["jti"] = "forged" + strings.Repeat("x", n) }))
		claimsText = string(b)
	}
	ownHeader := `{"alg":"RS256","kid":"` + kid + `","typ":"JWT"}`
	if _, err := in.Keys.Verify(signParts(t, own, ownHeader, claimsText)); err != nil {
		t.Fatalf("fixture: the hand-written token itself is refused: %v", err)
	}
	asString := func(name string, at time.Time) jwt.MapClaims {
		return claims(now, func(c jwt.MapClaims) { c[name] = strconv.FormatInt(at.Unix(), 10) })
	}

	body := testkit.MustJSON(fixture.Minimal(now, "CR-ATTACK"))
	for _, tt := range []struct {
		name   string
		header map[string]string
	}{
		{"alg none", bearer(noneTok)},
		{"HS256 signed with the public key", bearer(sign(t, jwt.SigningMethodHS256, pubPEM, kid, claims(now, nil)))},
		{"another RSA key under our kid", bearer(sign(t, jwt.SigningMethodRS256, stranger, kid, claims(now, nil)))},
		{"tampered payload", bearer(tampered)},
		{"expired", bearer(sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) {
			c["iat"], c["nbf"], c["exp"] = now.Add(-48*time.Hour).Unix(), now.Add(-48*time.Hour).Unix(), now.Add(-24*time.Hour).Unix()
		})))},
		{"not yet valid", bearer(sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() })))},
		{"30-day lifetime", bearer(sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) { c["exp"] = now.Add(30 * 24 * time.Hour).Unix() })))},
		{"no exp", bearer(sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) { delete(c, "exp") })))},
		{"no iat", bearer(sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) { delete(c, "iat") })))},
		{"other issuer", bearer(sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) { c["iss"] = "evil" })))},
		{"other audience", bearer(sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) { c["aud"] = "other" })))},
		{"no kid with two keys trusted", bearer(sign(t, jwt.SigningMethodRS256, own, "", claims(now, nil)))},
		{"unknown kid", bearer(sign(t, jwt.SigningMethodRS256, own, "not-a-kid", claims(now, nil)))},
		{"RS384", bearer(sign(t, jwt.SigningMethodRS384, own, kid, claims(now, nil)))},
		{"PS256", bearer(sign(t, jwt.SigningMethodPS256, own, kid, claims(now, nil)))},
		{"token in Authorization", map[string]string{"Authorization": "Bearer " + good}},
		{"scheme missing", map[string]string{"Authentication-Type": good}},
		{"other scheme", map[string]string{"Authentication-Type": "Basic " + good}},
		{"signature respelled with == appended", bearer(good + "==")},
		{"signature respelled with its unused last bits set", bearer(respell(t, good, 2, "unused bits"))},
		{"header respelled with padding", bearer(respell(t, signParts(t, own, ownHeader, claimsText), 0, "padding"))},
		{"payload respelled with padding", bearer(respell(t, signParts(t, own, ownHeader, claimsText), 1, "padding"))},
		{"kid bogus with our kid in KID", bearer(signParts(t, own, `{"alg":"RS256","kid":"bogus","KID":"`+kid+`"}`, claimsText))},
		{"exp as a string of digits", bearer(sign(t, jwt.SigningMethodRS256, own, kid, asString("exp", now.Add(time.Hour))))},
		{"iat as a string of digits", bearer(sign(t, jwt.SigningMethodRS256, own, kid, asString("iat", now)))},
		{"nbf as a string of digits", bearer(sign(t, jwt.SigningMethodRS256, own, kid, asString("nbf", now)))},
		{"garbage", bearer("not.a.token")},
		{"empty", map[string]string{"Authentication-Type": "bearer "}},
		{"no header", map[string]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{"Content-Type": "application/json"}
			for k, v := range tt.header {
				h[k] = v
			}
			r := testkit.Call(t, "POST", in.URL+"/api/partner_api.php", h, body)
			if r.Status != 401 || r.Body["status"] != "401" || r.Body["message"] != "Token inválido" ||
				r.Header.Get("WWW-Authenticate") != `Bearer error="invalid_token"` {
				t.Fatalf("%d %v %s; want 401 Token inválido", r.Status, r.Header, r.Raw)
			}
			if strings.Contains(string(r.Raw), good[:20]) {
				t.Fatal("the response echoes the token")
			}
		})
	}
	// The real token still works, in either scheme spelling; a token of a
	// deactivated user does not.
	if r := in.Report(t, good, body); r.Status != 200 {
		t.Fatalf("good token: %d %s", r.Status, r.Raw)
	}
	if err := in.Store.SetActive(t.Context(), testkit.Partner, false); err != nil {
		t.Fatal(err)
	}
	if r := in.Report(t, good, testkit.MustJSON(fixture.Minimal(now, "CR-ATTACK-2"))); r.Status != 401 || r.Body["detail"] != "user_inactive" {
		t.Fatalf("deactivated user's token: %d %s", r.Status, r.Raw)
	}
	if n := storetest.CountReports(t, in.Config.Store.Driver, in.Config.Store.DSN); n != 1 {
		t.Fatalf("%d rows, want only the good token's", n)
	}
}

func bearer(tok string) map[string]string {
	return map[string]string{"Authentication-Type": "bearer " + tok}
}

// TestKeyRotation: tokens signed by the old key stay valid while the new
// key signs, when the old public key is trusted.
func TestKeyRotation(t *testing.T) {
	t.Parallel()
	oldDir := t.TempDir()
	if _, err := jwtkeys.GenerateKeyFiles(filepath.Join(oldDir, "private.pem"), filepath.Join(oldDir, "public.pem")); err != nil {
		t.Fatal(err)
	}
	old := testkit.MustStart(t, func(c *config.Config) {
		c.Auth.PrivateKeyFile, c.GenerateKeys = filepath.Join(oldDir, "private.pem"), false
	})
	old.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	oldTok := old.Token(t, testkit.Partner, testkit.Password)

	rotated := testkit.MustStart(t, func(c *config.Config) { c.Auth.PublicKeysFile = filepath.Join(oldDir, "public.pem") })
	rotated.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	if r := rotated.Report(t, oldTok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-ROT-1"))); r.Status != 200 {
		t.Fatalf("old key's token after rotation: %d %s", r.Status, r.Raw)
	}
	newTok := rotated.Token(t, testkit.Partner, testkit.Password)
	if r := rotated.Report(t, newTok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-ROT-2"))); r.Status != 200 {
		t.Fatalf("new key's token: %d %s", r.Status, r.Raw)
	}
	jwks := testkit.Call(t, "GET", rotated.URL+"/.well-known/jwks.json", nil, nil)
	if keys, _ := jwks.Body["keys"].([]any); len(keys) != 2 {
		t.Fatalf("JWKS during rotation has %d keys, want 2: %s", len(keys), jwks.Raw)
	}
}

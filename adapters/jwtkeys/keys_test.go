package jwtkeys

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

func TestKeysRoundTrip(t *testing.T) {
	dir := t.TempDir()
	priv, err := GenerateKeyFiles(filepath.Join(dir, "private.pem"), filepath.Join(dir, "public.pem"))
	if err != nil {
		t.Fatal(err)
	}
	if st, _ := os.Stat(filepath.Join(dir, "private.pem")); st.Mode().Perm() != 0o600 {
		t.Fatalf("private key mode %v", st.Mode().Perm())
	}
	loaded, err := LoadPrivateKey(filepath.Join(dir, "private.pem"))
	if err != nil || !loaded.Equal(priv) {
		t.Fatalf("LoadPrivateKey: %v", err)
	}
	now := time.Now()
	policy := fixture.TokenPolicy()
	k, err := New(priv, nil, sysclock.Clock{})
	if err != nil {
		t.Fatal(err)
	}
	// The kid is the key's thumbprint: the same for every load.
	k2, _ := New(loaded, nil, sysclock.Clock{})
	if k.KeyID() == "" || k.KeyID() != k2.KeyID() {
		t.Fatalf("kid %q vs %q", k.KeyID(), k2.KeyID())
	}
	claims := policy.NewClaims(domain.User{Name: "acme", NIT: "900123456-8"}, now, "jti-1")
	tok, err := k.Issue(claims)
	if err != nil {
		t.Fatal(err)
	}
	got, err := k.Verify(tok)
	if err != nil || got.Subject != "acme" || got.NIT != "900123456-8" || got.ID != "jti-1" || !got.Expiry.Equal(claims.Expiry) {
		t.Fatalf("Verify = %+v, %v", got, err)
	}
	if err := policy.Check(got, now); err != nil {
		t.Fatal(err)
	}
	// A verify-only instance trusting the public key file accepts it; one
	// with another key does not.
	pubs, err := ReadPublicKeys(filepath.Join(dir, "public.pem"))
	if err != nil || len(pubs) != 1 {
		t.Fatalf("ReadPublicKeys: %v", err)
	}
	verifier, _ := New(nil, pubs, sysclock.Clock{})
	if _, err := verifier.Verify(tok); err != nil {
		t.Fatalf("verify-only: %v", err)
	}
	otherDir := t.TempDir()
	other, _ := GenerateKeyFiles(filepath.Join(otherDir, "p.pem"), "")
	stranger, _ := New(other, nil, sysclock.Clock{})
	if _, err := stranger.Verify(tok); !errors.Is(err, domain.ErrInvalidToken) {
		t.Fatalf("stranger verified: %v", err)
	}
	// JWKS files work as trusted key files too, and never carry the private part.
	jwks, _ := k.JWKS()
	if strings.Contains(string(jwks), `"d"`) {
		t.Fatal("JWKS contains a private member")
	}
	_ = os.WriteFile(filepath.Join(dir, "jwks.json"), jwks, 0o644)
	if pubs, err := ReadPublicKeys(filepath.Join(dir, "jwks.json")); err != nil || len(pubs) != 1 {
		t.Fatalf("JWKS file: %v", err)
	}
}

func TestLoadPrivateKeyRefusesLooseModes(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "private.pem")
	if _, err := GenerateKeyFiles(path, ""); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(path, 0o640)
	if _, err := LoadPrivateKey(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("group-readable key: %v", err)
	}
	if _, err := GenerateKeyFiles(path, ""); err == nil {
		t.Fatal("GenerateKeyFiles replaced an existing key")
	}
}

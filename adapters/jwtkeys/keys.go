// Package jwtkeys signs and verifies the service's RS256 access tokens with
// lestrrat-go/jwx, and loads, generates and publishes the RSA keys.
package jwtkeys

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lestrrat-go/jwx/v3/jwa"
	"github.com/lestrrat-go/jwx/v3/jwk"
)

// KeyBits is the size of generated keys, and the smallest accepted.
const KeyBits = 2048

// GenerateKeyFiles writes a new RSA key pair: the private key (PKCS#8
// PEM, mode 0600) at privPath and its public key (PEM) at pubPath. It
// refuses to replace an existing private key.
func GenerateKeyFiles(privPath, pubPath string) (*rsa.PrivateKey, error) {
	key, err := rsa.GenerateKey(rand.Reader, KeyBits)
	if err != nil {
		return nil, fmt.Errorf("generate RSA key: %w", err)
	}
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode private key: %w", err)
	}
	if err := os.MkdirAll(filepath.Dir(privPath), 0o700); err != nil {
		return nil, fmt.Errorf("create key directory: %w", err)
	}
	f, err := os.OpenFile(privPath, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, fmt.Errorf("create private key file: %w", err)
	}
	if err := errors.Join(pem.Encode(f, &pem.Block{Type: "PRIVATE KEY", Bytes: der}), f.Sync(), f.Close()); err != nil {
		return nil, fmt.Errorf("write private key %s: %w", privPath, err)
	}
	if pubPath != "" {
		if err := WritePublicKey(pubPath, &key.PublicKey); err != nil {
			return nil, err
		}
	}
	return key, nil
}

// WritePublicKey writes a public key as PEM (mode 0644).
func WritePublicKey(path string, pub *rsa.PublicKey) error {
	der, err := x509.MarshalPKIXPublicKey(pub)
	if err != nil {
		return fmt.Errorf("encode public key: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der})
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("write public key %s: %w", path, err)
	}
	return nil
}

// LoadPrivateKey reads a PEM RSA private key (PKCS#1 or PKCS#8). A file
// that group or others can read is refused: the key signs every token.
func LoadPrivateKey(path string) (*rsa.PrivateKey, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	if st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("private key %s is readable by group or others (mode %#o); run chmod 600 %s", path, st.Mode().Perm(), path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("private key: %w", err)
	}
	block, _ := pem.Decode(data)
	if block == nil {
		return nil, fmt.Errorf("private key %s: no PEM block", path)
	}
	var key any
	switch block.Type {
	case "RSA PRIVATE KEY":
		key, err = x509.ParsePKCS1PrivateKey(block.Bytes)
	case "PRIVATE KEY":
		key, err = x509.ParsePKCS8PrivateKey(block.Bytes)
	default:
		return nil, fmt.Errorf("private key %s: PEM block %q, want PRIVATE KEY or RSA PRIVATE KEY", path, block.Type)
	}
	if err != nil {
		return nil, fmt.Errorf("private key %s: %w", path, err)
	}
	rk, ok := key.(*rsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("private key %s: not an RSA key", path)
	}
	if rk.N.BitLen() < KeyBits {
		return nil, fmt.Errorf("private key %s: %d bits, want at least %d", path, rk.N.BitLen(), KeyBits)
	}
	return rk, nil
}

// LoadOrGenerate loads the private key at path, or, when generate is true
// and the file does not exist, creates a new pair there (public key beside
// it as public.pem).
func LoadOrGenerate(path string, generate bool) (key *rsa.PrivateKey, created bool, err error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) && generate {
		k, err := GenerateKeyFiles(path, filepath.Join(filepath.Dir(path), "public.pem"))
		return k, err == nil, err
	}
	k, err := LoadPrivateKey(path)
	return k, false, err
}

// publicJWK makes the JWK of a public key with its RFC 7638 thumbprint as
// kid and RS256 as alg.
func publicJWK(pub *rsa.PublicKey) (jwk.Key, error) {
	if pub.N.BitLen() < KeyBits {
		return nil, fmt.Errorf("public key of %d bits, want at least %d", pub.N.BitLen(), KeyBits)
	}
	k, err := jwk.Import(pub)
	if err != nil {
		return nil, fmt.Errorf("import public key: %w", err)
	}
	if err := jwk.AssignKeyID(k); err != nil {
		return nil, fmt.Errorf("key id: %w", err)
	}
	if err := k.Set(jwk.AlgorithmKey, jwa.RS256()); err != nil {
		return nil, err
	}
	if err := k.Set(jwk.KeyUsageKey, "sig"); err != nil {
		return nil, err
	}
	return k, nil
}

// ReadPublicKeys reads trusted public keys from a file: a JWKS document, or
// PEM with one or more PUBLIC KEY (or certificate) blocks.
func ReadPublicKeys(path string) ([]*rsa.PublicKey, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("public keys: %w", err)
	}
	var set jwk.Set
	if len(data) > 0 && data[0] == '{' {
		set, err = jwk.Parse(data)
	} else {
		set, err = jwk.Parse(data, jwk.WithPEM(true))
	}
	if err != nil {
		return nil, fmt.Errorf("public keys %s: %w", path, err)
	}
	var out []*rsa.PublicKey
	for i := 0; i < set.Len(); i++ {
		k, _ := set.Key(i)
		var pub rsa.PublicKey
		if err := jwk.Export(k, &pub); err != nil {
			return nil, fmt.Errorf("public keys %s: key %d is not an RSA public key: %w", path, i, err)
		}
		out = append(out, &pub)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("public keys %s: no keys", path)
	}
	return out, nil
}

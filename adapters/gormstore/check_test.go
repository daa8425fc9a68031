package gormstore_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// TestCheckRefusesTLSThatDoesNotProtect: the store's TLS rules, asked
// without connecting (Check, which Open and config check run). A CA file
// the store could not use, or beside a DSN that would not verify the
// server, and a DSN whose TLS does not verify the server or falls back to
// plain text (tls=skip-verify, tls=preferred, allowFallbackToPlaintext)
// without store.allow_insecure_tls, are refused naming the setting and
// never the DSN's password; verified TLS, plain TCP (no tls=, tls=false)
// and the insecure forms with the setting are accepted.
func TestCheckRefusesTLSThatDoesNotProtect(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	writeTestCA(t, ca)
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const dsn = "u:secret@tcp(db.internal:3306)/disb"
	insecure := gormstore.Options{AllowInsecureTLS: true}
	for _, tt := range []struct {
		name, driver, dsn string
		o                 gormstore.Options
		key               string // "": accepted
	}{
		{"tls=preferred", "mysql", dsn + "?tls=preferred", gormstore.Options{}, "store.dsn"},
		{"tls=skip-verify", "mysql", dsn + "?tls=skip-verify", gormstore.Options{}, "store.dsn"},
		{"tls=SKIP-VERIFY", "mysql", dsn + "?tls=SKIP-VERIFY", gormstore.Options{}, "store.dsn"},
		{"tls=true with a fallback to plain text", "mysql", dsn + "?tls=true&allowFallbackToPlaintext=true", gormstore.Options{}, "store.dsn"},
		{"tls=preferred, allowed", "mysql", dsn + "?tls=preferred", insecure, ""},
		{"tls=skip-verify, allowed", "mysql", dsn + "?tls=skip-verify", insecure, ""},
		{"plain, no tls=", "mysql", dsn, gormstore.Options{}, ""},
		{"plain, tls=false", "mysql", dsn + "?tls=false", gormstore.Options{}, ""},
		{"tls=true needs no CA file", "mysql", dsn + "?tls=true", gormstore.Options{}, ""},
		{"CA file, tls=skip-verify", "mysql", dsn + "?tls=skip-verify", gormstore.Options{TLSCAFile: ca}, "store.tls_ca_file"},
		{"CA file, tls=skip-verify, allowed", "mysql", dsn + "?tls=skip-verify", gormstore.Options{TLSCAFile: ca, AllowInsecureTLS: true}, "store.tls_ca_file"},
		{"CA file, tls=false", "mysql", dsn + "?tls=false", gormstore.Options{TLSCAFile: ca}, "store.tls_ca_file"},
		{"CA file, tls=preferred", "mysql", dsn + "?tls=preferred", gormstore.Options{TLSCAFile: ca}, "store.tls_ca_file"},
		{"CA file, a fallback to plain text", "mysql", dsn + "?allowFallbackToPlaintext=true", gormstore.Options{TLSCAFile: ca}, "store.tls_ca_file"},
		{"CA file missing", "mysql", dsn, gormstore.Options{TLSCAFile: filepath.Join(dir, "absent.pem")}, "store.tls_ca_file"},
		{"CA file not PEM", "mysql", dsn, gormstore.Options{TLSCAFile: notPEM}, "store.tls_ca_file"},
		{"CA file with sqlite", "sqlite", filepath.Join(dir, "x.db"), gormstore.Options{TLSCAFile: ca}, "store.tls_ca_file"},
		{"server name with sqlite", "sqlite", filepath.Join(dir, "x.db"), gormstore.Options{TLSServerName: "db.internal"}, "store.tls_server_name"},
		{"server name without CA file", "mysql", dsn + "?tls=true", gormstore.Options{TLSServerName: "db.internal"}, "store.tls_server_name"},
		{"CA file, no tls=", "mysql", dsn, gormstore.Options{TLSCAFile: ca, TLSServerName: "db.internal"}, ""},
		{"CA file, tls=true", "mysql", dsn + "?tls=true", gormstore.Options{TLSCAFile: ca}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := gormstore.Check(tt.driver, tt.dsn, storetest.WithOptions(tt.driver, tt.o))
			if tt.key == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			var se *gormstore.SettingError
			if !errors.As(err, &se) || se.Key != tt.key {
				t.Fatalf("Check: %v, want a refusal of %s", err, tt.key)
			}
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("the refusal shows the DSN's password: %v", err)
			}
			// Open refuses it the same way, before connecting.
			if _, err := gormstore.Open(tt.driver, tt.dsn, storetest.WithOptions(tt.driver, tt.o), domain.DefaultCatalogue()); !errors.As(err, &se) || se.Key != tt.key {
				t.Fatalf("Open: %v, want a refusal of %s", err, tt.key)
			}
		})
	}
}

func writeTestCA(t *testing.T, path string) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "test CA"},
		NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

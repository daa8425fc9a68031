package config

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestStoreTLSRefusedAtStart: a CA file the store could not use, or one
// whose DSN would not verify the server, stops the service at start with
// the key named; a usable one with tls absent or true is accepted.
func TestStoreTLSRefusedAtStart(t *testing.T) {
	dir := t.TempDir()
	ca := filepath.Join(dir, "ca.pem")
	writeTestCA(t, ca)
	notPEM := filepath.Join(dir, "not.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	const dsn = "u:secret@tcp(db.internal:3306)/disb"
	for _, tt := range []struct {
		name, driver, dsn, ca, server, key string
	}{
		{"tls=skip-verify", "mysql", dsn + "?tls=skip-verify", ca, "", "store.tls_ca_file"},
		{"tls=false", "mysql", dsn + "?tls=false", ca, "", "store.tls_ca_file"},
		{"tls=preferred", "mysql", dsn + "?tls=preferred", ca, "", "store.tls_ca_file"},
		{"missing file", "mysql", dsn, filepath.Join(dir, "absent.pem"), "", "store.tls_ca_file"},
		{"not PEM", "mysql", dsn, notPEM, "", "store.tls_ca_file"},
		{"sqlite", "sqlite", "", ca, "", "store.tls_ca_file"},
		{"server name without CA", "mysql", dsn + "?tls=true", "", "db.internal", "store.tls_server_name"},
		{"accepted, no tls=", "mysql", dsn, ca, "db.internal", ""},
		{"accepted, tls=true", "mysql", dsn + "?tls=true", ca, "", ""},
		{"tls=true needs no CA file", "mysql", dsn + "?tls=true", "", "", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			t.Setenv("DISB_STORE_DRIVER", tt.driver)
			t.Setenv("DISB_STORE_DSN", tt.dsn)
			t.Setenv("DISB_STORE_TLS_CA_FILE", tt.ca)
			t.Setenv("DISB_STORE_TLS_SERVER_NAME", tt.server)
			_, err := Load("")
			if tt.key == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			mustNameKey(t, err, tt.key)
			if strings.Contains(err.Error(), "secret") {
				t.Fatalf("the error shows the DSN's password: %v", err)
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

package gormstore_test

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"database/sql"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMySQLTLSWithPrivateCA: against a real MariaDB that requires TLS
// (require_secure_transport) with a certificate of a throwaway CA, the
// store given that CA (store.tls_ca_file) connects, writes and reads, on
// sessions that are encrypted (Ssl_cipher) in both its pools; a CA that
// did not sign the server's certificate, a server name the certificate
// does not carry, and a DSN without TLS are refused, each with its reason.
func TestMySQLTLSWithPrivateCA(t *testing.T) {
	dir := t.TempDir()
	caFile, ca, caKey := writeCA(t, dir, "ca.pem", "disbursementd test CA")
	otherFile, _, _ := writeCA(t, dir, "other-ca.pem", "a CA that signed nothing")
	certFile, keyFile := writeServerCert(t, dir, ca, caKey)
	db := storetest.MustStartMariaDBWith(t, "--ssl-ca="+caFile, "--ssl-cert="+certFile, "--ssl-key="+keyFile,
		"--require-secure-transport=ON")
	ctx := context.Background()
	withCA := gormstore.Options{TLSCAFile: caFile}

	boot, err := gormstore.Open(gormstore.MySQL, db.DSN(""), storetest.WithOptions(gormstore.MySQL, withCA), domain.DefaultCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := gormstore.Pool(boot).ExecContext(ctx, "CREATE DATABASE disb CHARACTER SET utf8mb4"); err != nil {
		t.Fatalf("create the database over TLS: %v", err)
	}
	_ = boot.Close()

	st := storetest.MustOpen(t, gormstore.MySQL, db.DSN("disb"), withCA) // migrates
	at := time.Now().UTC().Truncate(time.Second)
	if err := st.CreateUser(ctx, domain.User{Name: "acme", NIT: "900123456-8", PasswordHash: "x", Active: true, CreatedAt: at, UpdatedAt: at}); err != nil {
		t.Fatal(err)
	}
	if u, err := st.GetUser(ctx, "acme"); err != nil || u.NIT != "900123456-8" {
		t.Fatalf("read back over TLS: %+v, %v", u, err)
	}
	for _, p := range []struct {
		name string
		db   *sql.DB
	}{{"reports' pool", gormstore.Pool(st)}, {"look-ups' pool", gormstore.LookupPool(st)}} {
		cipher, err := sessionStatus(ctx, p.db, "Ssl_cipher")
		if err != nil || cipher == "" {
			t.Fatalf("%s: Ssl_cipher %q, %v: the session is not encrypted", p.name, cipher, err)
		}
		version, err := sessionStatus(ctx, p.db, "Ssl_version")
		if err != nil || (version != "TLSv1.2" && version != "TLSv1.3") {
			t.Fatalf("%s: Ssl_version %q, %v; want TLS 1.2 or 1.3", p.name, version, err)
		}
		t.Logf("%s: %s, %s", p.name, version, cipher)
	}

	refused := func(what string, opts gormstore.Options, dsn, want string) {
		t.Helper()
		s, err := gormstore.Open(gormstore.MySQL, dsn, storetest.WithOptions(gormstore.MySQL, opts), domain.DefaultCatalogue())
		if err == nil {
			pctx, cancel := context.WithTimeout(ctx, 10*time.Second)
			err = s.Ping(pctx)
			cancel()
			_ = s.Close()
		}
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: got %v, want an error saying %q", what, err, want)
		}
		t.Logf("%s: %v", what, err)
	}
	refused("a CA that did not sign the server's certificate", gormstore.Options{TLSCAFile: otherFile}, db.DSN("disb"), "certificate signed by unknown authority")
	refused("a server name the certificate does not carry", gormstore.Options{TLSCAFile: caFile, TLSServerName: "db.example.com"}, db.DSN("disb"), "db.example.com")
	// MariaDB 10.11 answers a plain connection under
	// require_secure_transport with 1045, not naming the transport: the
	// same user, without a password, was let in over TLS above.
	refused("no TLS", gormstore.Options{}, db.DSN("disb"), "Access denied")
	refused("tls=skip-verify beside a CA file", withCA, db.DSN("disb")+"?tls=skip-verify", "store.tls_ca_file")
}

// sessionStatus reads one SHOW SESSION STATUS value on a connection of db.
func sessionStatus(ctx context.Context, db *sql.DB, name string) (string, error) {
	var n, v string
	err := db.QueryRowContext(ctx, "SHOW SESSION STATUS LIKE ?", name).Scan(&n, &v)
	return v, err
}

// writeCA writes a new self-signed CA's certificate to dir/name.
func writeCA(t *testing.T, dir, name, cn string) (string, *x509.Certificate, *rsa.PrivateKey) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	writePEM(t, path, "CERTIFICATE", der)
	return path, cert, key
}

// writeServerCert writes a server certificate for 127.0.0.1 and
// localhost, signed by ca, and its key.
func writeServerCert(t *testing.T, dir string, ca *x509.Certificate, caKey *rsa.PrivateKey) (certFile, keyFile string) {
	t.Helper()
	key := newKey(t)
	tmpl := &x509.Certificate{
		SerialNumber: serial(t), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem")
	writePEM(t, certFile, "CERTIFICATE", der)
	writePEM(t, keyFile, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key))
	return certFile, keyFile
}

func newKey(t *testing.T) *rsa.PrivateKey {
	t.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	return key
}

func serial(t *testing.T) *big.Int {
	t.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func writePEM(t *testing.T, path, kind string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}

package storetest

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TLSFiles are the PEM files of a MariaDB started by MustStartMariaDBTLS:
// the throwaway CA's certificate, the server's certificate (for
// 127.0.0.1 and localhost, signed by that CA) and key, and the
// certificate of another CA, which signed nothing.
type TLSFiles struct{ CA, Cert, Key, OtherCA string }

// MustStartMariaDBTLS starts a MariaDB that admits only TLS connections
// (require_secure_transport), with a certificate of a CA made for it.
func MustStartMariaDBTLS(tb testing.TB) (*MariaDB, TLSFiles) {
	tb.Helper()
	dir := tb.TempDir()
	var f TLSFiles
	var ca *x509.Certificate
	var caKey *rsa.PrivateKey
	f.CA, ca, caKey = writeCA(tb, dir, "ca.pem", "disbursementd test CA")
	f.OtherCA, _, _ = writeCA(tb, dir, "other-ca.pem", "a CA that signed nothing")
	f.Cert, f.Key = writeServerCert(tb, dir, ca, caKey)
	db := MustStartMariaDBWith(tb, "--ssl-ca="+f.CA, "--ssl-cert="+f.Cert, "--ssl-key="+f.Key,
		"--require-secure-transport=ON")
	return db, f
}

// writeCA writes a new self-signed CA's certificate to dir/name.
func writeCA(tb testing.TB, dir, name, cn string) (string, *x509.Certificate, *rsa.PrivateKey) {
	tb.Helper()
	key := newKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber: serial(tb), Subject: pkix.Name{CommonName: cn},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageCRLSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		tb.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		tb.Fatal(err)
	}
	path := filepath.Join(dir, name)
	writePEM(tb, path, "CERTIFICATE", der)
	return path, cert, key
}

// writeServerCert writes a server certificate for 127.0.0.1 and
// localhost, signed by ca, and its key.
func writeServerCert(tb testing.TB, dir string, ca *x509.Certificate, caKey *rsa.PrivateKey) (certFile, keyFile string) {
	tb.Helper()
	key := newKey(tb)
	tmpl := &x509.Certificate{
		SerialNumber: serial(tb), Subject: pkix.Name{CommonName: "localhost"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		DNSNames: []string{"localhost"}, IPAddresses: []net.IP{net.IPv4(127, 0, 0, 1)},
		KeyUsage: x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		tb.Fatal(err)
	}
	certFile, keyFile = filepath.Join(dir, "server.pem"), filepath.Join(dir, "server-key.pem")
	writePEM(tb, certFile, "CERTIFICATE", der)
	writePEM(tb, keyFile, "RSA PRIVATE KEY", x509.MarshalPKCS1PrivateKey(key))
	return certFile, keyFile
}

func newKey(tb testing.TB) *rsa.PrivateKey {
	tb.Helper()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		tb.Fatal(err)
	}
	return key
}

func serial(tb testing.TB) *big.Int {
	tb.Helper()
	n, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func writePEM(tb testing.TB, path, kind string, der []byte) {
	tb.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: kind, Bytes: der}), 0o600); err != nil {
		tb.Fatal(err)
	}
}

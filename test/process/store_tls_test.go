package process

import (
	"crypto/tls"
	"crypto/x509"
	"database/sql"
	"os"
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestServeOverTLSToMariaDB: the real binary, given a private CA
// (store.tls_ca_file) and a DSN with tls=true, adds a user and stores a
// report on a MariaDB that admits only TLS (require_secure_transport):
// every connection it made was encrypted and verified. The same binary
// given a CA that did not sign the server's certificate fails with the
// reason, and with tls=skip-verify beside the CA file refuses to start,
// naming the key.
func TestServeOverTLSToMariaDB(t *testing.T) {
	t.Parallel()
	db, files := storetest.MustStartMariaDBTLS(t)
	admin := tlsAdmin(t, db.DSN(""), files.CA)
	if _, err := admin.Exec("CREATE DATABASE disb CHARACTER SET utf8mb4"); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	env := testkit.BaseEnv("DISB_STORE_DRIVER=mysql", "DISB_STORE_DSN="+db.DSN("disb")+"?tls=true",
		"DISB_STORE_TLS_CA_FILE="+files.CA, "DISB_STORE_LOCK_WAIT_TIMEOUT=1s")

	if out, err := testkit.CLI(t, dir, append(env, "DISB_STORE_TLS_CA_FILE="+files.OtherCA), "", "migrate"); err == nil ||
		!strings.Contains(out, "certificate signed by unknown authority") {
		t.Fatalf("migrate with a CA that did not sign the server's certificate: %v\n%s", err, out)
	}
	if out, err := testkit.CLI(t, dir, append(env, "DISB_STORE_DSN="+db.DSN("disb")+"?tls=skip-verify"), "", "config", "check"); err == nil ||
		!strings.Contains(out, "store.tls_ca_file (DISB_STORE_TLS_CA_FILE)") {
		t.Fatalf("config check with tls=skip-verify and a CA file: %v\n%s", err, out)
	}

	if out, err := testkit.CLI(t, dir, env, testkit.Password+"\n", "users", "add", "--user", testkit.Partner, "--nit", testkit.Nit); err != nil {
		t.Fatalf("users add over TLS: %v\n%s", err, out)
	}
	p := testkit.StartProcess(t, dir, env)
	p.MustWaitReady(t)
	in := &testkit.Instance{URL: p.URL}
	tok := in.Token(t, testkit.Partner, testkit.Password)
	if r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(time.Now(), "CR-TLS-1", fixture.PDF(16<<10)))); r.Status != 200 {
		t.Fatalf("report over TLS: %d %s", r.Status, r.Raw)
	}
	var n int
	if err := admin.QueryRow("SELECT COUNT(*) FROM disb.partner_disbursement_staging WHERE numero_credito = 'CR-TLS-1'").Scan(&n); err != nil || n != 1 {
		t.Fatalf("%d rows of the report, %v", n, err)
	}
	var name, cipher string
	if err := admin.QueryRow("SHOW SESSION STATUS LIKE 'Ssl_cipher'").Scan(&name, &cipher); err != nil || cipher == "" {
		t.Fatalf("the admin session is not encrypted (%q, %v): require_secure_transport is not what the test thinks", cipher, err)
	}
}

// tlsAdmin is a connection pool to dsn over TLS verified against the CA
// in caFile, closed at cleanup.
func tlsAdmin(t *testing.T, dsn, caFile string) *sql.DB {
	t.Helper()
	pem, err := os.ReadFile(caFile)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		t.Fatal("no certificate in the test CA file")
	}
	if err := mysqldrv.RegisterTLSConfig("test-admin", &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", dsn+"?tls=test-admin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

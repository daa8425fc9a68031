package gormstore_test

import (
	"context"
	"database/sql"
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
	t.Parallel()
	db, files := storetest.MustStartMariaDBTLS(t)
	caFile, otherFile := files.CA, files.OtherCA
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

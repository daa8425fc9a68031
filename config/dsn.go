package config

import (
	"crypto/x509"
	"os"
	"regexp"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// mysqlDSN matches what only a go-sql-driver DSN has: an "@" before the
// first slash ([user[:password]@][net[(addr)]]/dbname). A file path has
// its first "@", if any, after a directory.
var mysqlDSN = regexp.MustCompile(`^[^/]*@[^/]*/`)

// looksLikeMySQLDSN reports whether a store.dsn given for SQLite is
// clearly a MySQL DSN.
func looksLikeMySQLDSN(dsn string) bool { return mysqlDSN.MatchString(dsn) }

// checkMySQLDSN refuses a DSN the MySQL driver cannot read, with the
// driver's reason and the form it wants. The driver's messages name the
// part it could not read, never the password.
func checkMySQLDSN(dsn string) error {
	if _, err := mysqldrv.ParseDSN(dsn); err != nil {
		return keyError("store.dsn", "not a MySQL DSN (%s); the form is user:password@tcp(host:3306)/dbname", oneLine(err.Error()))
	}
	return nil
}

// checkStoreTLS refuses, at start, a CA file the store could not use:
// with SQLite, unreadable, without a certificate, or beside a DSN whose
// tls= would not verify the server (false, preferred, skip-verify); and a
// server name without a CA file, which would change nothing.
func checkStoreTLS(s *StoreConfig) error {
	if s.TLSCAFile == "" {
		if s.TLSServerName != "" {
			return keyError("store.tls_server_name", "set without store.tls_ca_file; it names the certificate that CA signed (with tls=true in the DSN the DSN's host is checked)")
		}
		return nil
	}
	if s.Driver != "mysql" {
		return keyError("store.tls_ca_file", "set, but store.driver is %s; TLS is for MySQL only", s.Driver)
	}
	cfg, err := mysqldrv.ParseDSN(s.DSN)
	if err != nil {
		return keyError("store.dsn", "not a MySQL DSN (%s)", oneLine(err.Error()))
	}
	switch cfg.TLSConfig {
	case "", "true":
	default:
		return keyError("store.tls_ca_file", "set, but store.dsn says tls=%s; with a CA file the server is always verified: remove tls= from the DSN or set tls=true", cfg.TLSConfig)
	}
	pem, err := os.ReadFile(s.TLSCAFile)
	if err != nil {
		return keyError("store.tls_ca_file", "cannot read it: %s", oneLine(err.Error()))
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return keyError("store.tls_ca_file", "%s holds no PEM certificate", s.TLSCAFile)
	}
	return nil
}

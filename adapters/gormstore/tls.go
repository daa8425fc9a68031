package gormstore

import (
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"fmt"
	"net"
	"os"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/domain"
)

// SettingError is the store's refusal of one setting's value. Key names
// the setting as the configuration does (store.dsn, store.tls_ca_file),
// so that the configuration's check can name it and its variable.
type SettingError struct {
	Key, Reason string
}

func (e *SettingError) Error() string { return e.Key + ": " + e.Reason }

// Check refuses, without connecting, what Open would refuse: options it
// cannot use (Options.check), a list of nodes it cannot use
// (splitNodes), TLS settings that cannot work or would
// not protect the connection (checkTLS), and a DSN that makes a Galera
// node's reads uncausal (checkCausalReads). The configuration's check
// (config check, and every command before it opens the store) asks it,
// so the store's rules are stated here only.
func Check(driver, dsn string, o Options) error {
	if err := o.check(driver); err != nil {
		return err
	}
	dsn, err := checkNodes(driver, dsn)
	if err != nil {
		return err
	}
	if err := checkTLS(driver, dsn, o); err != nil {
		return err
	}
	return checkCausalReads(driver, dsn)
}

// checkTLS refuses a CA file or server name with SQLite; a server name
// without a CA file, which would change nothing; a CA file that cannot
// be read or holds no PEM certificate, or beside a DSN whose tls= would
// not verify the server; and, unless o.AllowInsecureTLS, a DSN whose TLS
// does not verify the server (tls=skip-verify) or falls back to plain
// text (tls=preferred, allowFallbackToPlaintext=true): those look
// encrypted and are not (anyone on the path can pose as the server, or
// the server can decline TLS).
func checkTLS(driver, dsn string, o Options) error {
	switch {
	case driver != MySQL && o.TLSCAFile != "":
		return &SettingError{"store.tls_ca_file", fmt.Sprintf("set, but store.driver is %s; TLS is for MySQL only", driver)}
	case driver != MySQL && o.TLSServerName != "":
		return &SettingError{"store.tls_server_name", fmt.Sprintf("set, but store.driver is %s; TLS is for MySQL only", driver)}
	case o.TLSServerName != "" && o.TLSCAFile == "":
		return &SettingError{"store.tls_server_name", "set without store.tls_ca_file; it names the certificate that CA signed (with tls=true in the DSN the DSN's host is checked)"}
	case driver != MySQL:
		return nil
	}
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return &SettingError{"store.dsn", "not a MySQL DSN (" + domain.MaskError(err).Error() + ")"}
	}
	if o.TLSCAFile != "" {
		if cfg.TLSConfig != "" && cfg.TLSConfig != "true" || cfg.AllowFallbackToPlaintext {
			return &SettingError{"store.tls_ca_file", "set, but store.dsn says " + insecureTLS(cfg) +
				"; with a CA file the server is always verified: remove it from the DSN or set tls=true"}
		}
		_, err := readCA(o.TLSCAFile)
		return err
	}
	if (cfg.TLSConfig == "skip-verify" || cfg.TLSConfig == "preferred" || cfg.AllowFallbackToPlaintext) && !o.AllowInsecureTLS {
		return &SettingError{"store.dsn", insecureTLS(cfg) + " does not verify the server" +
			" (anyone on the path can pose as it, and preferred or allowFallbackToPlaintext fall back to plain text):" +
			" use tls=true (a public CA) or store.tls_ca_file (a private CA), or set store.allow_insecure_tls: true to accept it knowingly"}
	}
	return nil
}

// insecureTLS names what in cfg does not verify the server.
func insecureTLS(cfg *mysqldrv.Config) string {
	if cfg.TLSConfig == "" || cfg.TLSConfig == "true" {
		return "allowFallbackToPlaintext=true"
	}
	return "tls=" + cfg.TLSConfig
}

// readCA reads the PEM certificates of caFile.
func readCA(caFile string) ([]byte, error) {
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, &SettingError{"store.tls_ca_file", "cannot read it: " + err.Error()}
	}
	if !x509.NewCertPool().AppendCertsFromPEM(pem) {
		return nil, &SettingError{"store.tls_ca_file", caFile + " holds no PEM certificate"}
	}
	return pem, nil
}

// withCA makes every connection of dsn (a MySQLDSN that checkTLS passed)
// use TLS 1.2 or later and verify the server's certificate against the
// CA in caFile (PEM) and the name serverName (empty: the DSN's host). The
// driver knows a tls.Config only by a registered name, which the DSN then
// carries: the name is derived from the CA and the server name, so two
// stores of one process with different CAs never share one.
func withCA(dsn, caFile, serverName string) (string, error) {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("store.dsn: %w", domain.MaskError(err))
	}
	pem, err := readCA(caFile)
	if err != nil {
		return "", err
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(pem)
	if serverName == "" {
		if serverName, _, err = net.SplitHostPort(cfg.Addr); err != nil {
			serverName = cfg.Addr
		}
	}
	sum := sha256.Sum256(append(append(pem, 0), serverName...))
	name := "disbursementd-ca-" + hex.EncodeToString(sum[:8])
	tc := &tls.Config{RootCAs: roots, ServerName: serverName, MinVersion: tls.VersionTLS12}
	if err := mysqldrv.RegisterTLSConfig(name, tc); err != nil {
		return "", fmt.Errorf("store.tls_ca_file: %w", err)
	}
	cfg.TLSConfig, cfg.TLS = name, nil
	return cfg.FormatDSN(), nil
}

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

// withCA makes every connection of dsn (a MySQLDSN) use TLS 1.2 or later
// and verify the server's certificate against the CA in caFile (PEM) and
// the name serverName (empty: the DSN's host). The driver knows a
// tls.Config only by a registered name, which the DSN then carries: the
// name is derived from the CA and the server name, so two stores of one
// process with different CAs never share one. A DSN whose tls= would not
// verify the server (false, preferred, skip-verify) is refused, as the
// configuration does.
func withCA(dsn, caFile, serverName string) (string, error) {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("store.dsn: %w", domain.MaskError(err))
	}
	if cfg.TLSConfig != "" && cfg.TLSConfig != "true" {
		return "", fmt.Errorf("store.tls_ca_file: set, but store.dsn says tls=%s; with a CA file the server is always verified", cfg.TLSConfig)
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return "", fmt.Errorf("store.tls_ca_file: %w", err)
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(pem) {
		return "", fmt.Errorf("store.tls_ca_file: %s holds no PEM certificate", caFile)
	}
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

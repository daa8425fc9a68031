package config

import (
	"fmt"
	"strings"
)

// Redacted returns the effective configuration for the start-up log, with
// the database password hidden.
func (c *Config) Redacted() map[string]any {
	return map[string]any{
		"http.addr": c.HTTP.Addr, "http.max_body_bytes": c.HTTP.MaxBodyBytes,
		"http.read_header_timeout": c.HTTP.ReadHeaderTimeout.String(), "http.read_timeout": c.HTTP.ReadTimeout.String(),
		"http.write_timeout": c.HTTP.WriteTimeout.String(), "http.idle_timeout": c.HTTP.IdleTimeout.String(),
		"http.shutdown_grace": c.HTTP.ShutdownGrace.String(), "http.report_timeout": c.HTTP.ReportTimeout.String(),
		"http.trusted_proxies":   fmt.Sprint(c.HTTP.TrustedProxies),
		"throttle.user_failures": c.Throttle.UserFailures, "throttle.user_window": c.Throttle.UserWindow.String(),
		"throttle.addr_failures": c.Throttle.AddrFailures, "throttle.addr_window": c.Throttle.AddrWindow.String(),
		"store.driver": c.Store.Driver, "store.dsn": RedactDSN(c.Store.DSN), "store.auto_migrate": c.Store.AutoMigrate,
		"store.max_open_conns": c.Store.MaxOpenConns, "store.max_idle_conns": c.Store.MaxIdleConns,
		"uploads.dir": c.Uploads.Dir, "uploads.max_file_bytes": c.Uploads.MaxFileBytes,
		"uploads.allowed_types": strings.Join(c.Uploads.AllowedTypes, ","),
		"auth.private_key_file": c.Auth.PrivateKeyFile, "auth.public_keys_file": c.Auth.PublicKeysFile,
		"auth.issuer": c.Auth.Issuer, "auth.audience": c.Auth.Audience, "auth.leeway": c.Auth.Leeway.String(),
		"auth.token_ttl": c.Auth.TokenTTL.String(), "auth.token_cache_size": c.Auth.TokenCacheSize,
		"auth.user_staleness": c.Auth.UserStaleness.String(), "login.url": c.Login.URL, "login.timeout": c.Login.Timeout.String(),
		"idempotency.ttl": c.Idempotency.TTL.String(), "idempotency.wait": c.Idempotency.Wait.String(),
		"log.format": c.Log.Format, "log.level": c.Log.Level,
	}
}

// RedactDSN hides the password of a go-sql-driver DSN (user:pass@...).
func RedactDSN(dsn string) string {
	at := strings.LastIndex(dsn, "@")
	if at < 0 {
		return dsn
	}
	cred := dsn[:at]
	if i := strings.Index(cred, ":"); i >= 0 {
		return cred[:i] + ":***" + dsn[at:]
	}
	return dsn
}

// Package config reads the service's settings once, with viper, from a
// YAML file and DISB_<SECTION>_<KEY> environment variables, into a typed,
// validated struct. Only cmd/ imports it.
package config

import (
	"fmt"
	"net"
	"net/netip"
	"os"
	"sort"
	"strings"
	"time"

	"github.com/spf13/viper"
)

// Config is the whole configuration.
type Config struct {
	HTTP struct {
		Addr              string
		ReadHeaderTimeout time.Duration
		ReadTimeout       time.Duration
		WriteTimeout      time.Duration
		IdleTimeout       time.Duration
		ShutdownGrace     time.Duration
		MaxBodyBytes      int64
		ReportTimeout     time.Duration
		TrustedProxies    []netip.Prefix
	}
	Store struct {
		Driver          string
		DSN             string
		AutoMigrate     bool
		MaxOpenConns    int
		MaxIdleConns    int
		ConnMaxLifetime time.Duration
		ConnMaxIdleTime time.Duration
		BusyTimeout     time.Duration
	}
	Uploads struct {
		Dir          string
		MaxFileBytes int64
		AllowedTypes []string
	}
	Auth struct {
		PrivateKeyFile string
		PublicKeysFile string
		Issuer         string
		Audience       string
		Leeway         time.Duration
		TokenTTL       time.Duration
		BcryptCost     int
		TokenCacheSize int
		UserStaleness  time.Duration
	}
	Login struct {
		URL     string
		Timeout time.Duration
	}
	Throttle struct {
		UserFailures int
		UserWindow   time.Duration
		AddrFailures int
		AddrWindow   time.Duration
	}
	Idempotency struct {
		TTL  time.Duration
		Wait time.Duration
	}
	Log struct {
		Format string
		Level  string
	}
	// GenerateKeys is true when no private key file was configured: the
	// embedded default creates a pair under data/keys on first start.
	GenerateKeys bool
}

// Default locations of the embedded default.
const (
	DefaultDataDir    = "data"
	DefaultSQLitePath = "data/disbursement.db"
	DefaultUploadsDir = "data/uploads"
	DefaultKeyFile    = "data/keys/private.pem"
	DefaultConfigFile = "disbursementd.yaml"
)

// Load reads the file at path ("" means disbursementd.yaml in the working
// directory, if it exists), then the environment. Every error names the
// key it is about.
func Load(path string) (*Config, error) {
	v := viper.New()
	for k, d := range defaults {
		v.SetDefault(k, d)
		// Binding each key makes env overrides work for keys the file does
		// not have, and for Unmarshal-free reads alike.
		_ = v.BindEnv(k, EnvName(k))
	}
	explicit := path != ""
	if !explicit {
		path = DefaultConfigFile
	}
	if _, err := os.Stat(path); err == nil || explicit {
		v.SetConfigFile(path)
		v.SetConfigType("yaml")
		if err := v.ReadInConfig(); err != nil {
			return nil, fmt.Errorf("config: file %s: %w", path, err)
		}
		if err := unknownKeys(v); err != nil {
			return nil, fmt.Errorf("config: file %s: %w", path, err)
		}
	}
	return read(v)
}

// Defaults returns the configuration with every key at its default, as if
// no file and no environment variable were set (for tests and tools).
func Defaults() *Config {
	v := viper.New()
	for k, d := range defaults {
		v.SetDefault(k, d)
	}
	c, err := read(v)
	if err != nil {
		panic("config: defaults do not validate: " + err.Error())
	}
	return c
}

func read(v *viper.Viper) (*Config, error) {
	r := &reader{v: v}
	c := &Config{}
	c.HTTP.Addr = r.str("http.addr")
	c.HTTP.ReadHeaderTimeout = r.dur("http.read_header_timeout")
	c.HTTP.ReadTimeout = r.dur("http.read_timeout")
	c.HTTP.WriteTimeout = r.dur("http.write_timeout")
	c.HTTP.IdleTimeout = r.dur("http.idle_timeout")
	c.HTTP.ShutdownGrace = r.dur("http.shutdown_grace")
	c.HTTP.MaxBodyBytes = r.size("http.max_body_bytes")
	c.HTTP.ReportTimeout = r.dur("http.report_timeout")
	c.HTTP.TrustedProxies = r.prefixes("http.trusted_proxies")
	c.Throttle.UserFailures = r.count("throttle.user_failures")
	c.Throttle.UserWindow = r.dur("throttle.user_window")
	c.Throttle.AddrFailures = r.count("throttle.addr_failures")
	c.Throttle.AddrWindow = r.dur("throttle.addr_window")
	c.Store.Driver = r.str("store.driver")
	c.Store.DSN = r.str("store.dsn")
	c.Store.AutoMigrate = r.boolean("store.auto_migrate")
	c.Store.MaxOpenConns = r.count("store.max_open_conns")
	c.Store.MaxIdleConns = r.count("store.max_idle_conns")
	c.Store.ConnMaxLifetime = r.dur("store.conn_max_lifetime")
	c.Store.ConnMaxIdleTime = r.dur("store.conn_max_idle_time")
	c.Store.BusyTimeout = r.dur("store.busy_timeout")
	c.Uploads.Dir = r.str("uploads.dir")
	c.Uploads.MaxFileBytes = r.size("uploads.max_file_bytes")
	c.Uploads.AllowedTypes = r.list("uploads.allowed_types")
	c.Auth.PrivateKeyFile = r.str("auth.private_key_file")
	c.Auth.PublicKeysFile = r.str("auth.public_keys_file")
	c.Auth.Issuer = r.str("auth.issuer")
	c.Auth.Audience = r.str("auth.audience")
	c.Auth.Leeway = r.dur("auth.leeway")
	c.Auth.TokenTTL = r.dur("auth.token_ttl")
	c.Auth.BcryptCost = r.count("auth.bcrypt_cost")
	c.Auth.TokenCacheSize = r.count("auth.token_cache_size")
	c.Auth.UserStaleness = r.dur("auth.user_staleness")
	c.Login.URL = r.str("login.url")
	c.Login.Timeout = r.dur("login.timeout")
	c.Idempotency.TTL = r.dur("idempotency.ttl")
	c.Idempotency.Wait = r.dur("idempotency.wait")
	c.Log.Format = r.str("log.format")
	c.Log.Level = r.str("log.level")
	if r.err != nil {
		return nil, r.err
	}
	if err := c.finish(); err != nil {
		return nil, err
	}
	return c, nil
}

func unknownKeys(v *viper.Viper) error {
	var bad []string
	for _, k := range v.AllKeys() {
		if _, ok := defaults[k]; !ok {
			bad = append(bad, k)
		}
	}
	if len(bad) > 0 {
		sort.Strings(bad)
		return fmt.Errorf("unknown key %s (known keys: see disbursementd.example.yaml)", strings.Join(bad, ", "))
	}
	return nil
}

// finish fills derived defaults and validates.
func (c *Config) finish() error {
	bad := func(key, format string, a ...any) error {
		return fmt.Errorf("config: %s (%s): %s", key, EnvName(key), fmt.Sprintf(format, a...))
	}
	if _, _, err := net.SplitHostPort(c.HTTP.Addr); err != nil {
		return bad("http.addr", "%q is not host:port", c.HTTP.Addr)
	}
	switch c.Store.Driver {
	case "sqlite":
		if c.Store.DSN == "" {
			c.Store.DSN = DefaultSQLitePath
		}
	case "mysql":
		if c.Store.DSN == "" {
			return bad("store.dsn", "required when store.driver is mysql (user:pass@tcp(host:3306)/db)")
		}
	default:
		return bad("store.driver", "%q, want sqlite or mysql", c.Store.Driver)
	}
	if c.Auth.PrivateKeyFile == "" {
		c.Auth.PrivateKeyFile, c.GenerateKeys = DefaultKeyFile, true
	}
	if c.Auth.Issuer == "" {
		return bad("auth.issuer", "empty")
	}
	if c.Auth.Audience == "" {
		return bad("auth.audience", "empty")
	}
	if c.Auth.TokenTTL <= 0 || c.Auth.TokenTTL > 24*time.Hour {
		return bad("auth.token_ttl", "%s, want more than 0 and at most 24h", c.Auth.TokenTTL)
	}
	if c.Auth.BcryptCost < 10 || c.Auth.BcryptCost > 16 {
		return bad("auth.bcrypt_cost", "%d, want 10 to 16", c.Auth.BcryptCost)
	}
	if c.Login.URL != "" && !strings.HasPrefix(c.Login.URL, "http://") && !strings.HasPrefix(c.Login.URL, "https://") {
		return bad("login.url", "%q is not an http(s) URL", c.Login.URL)
	}
	if c.Idempotency.TTL < 24*time.Hour {
		return bad("idempotency.ttl", "%s, want at least 24h (the contract keeps keys 24 h)", c.Idempotency.TTL)
	}
	if len(c.Uploads.AllowedTypes) == 0 {
		return bad("uploads.allowed_types", "empty")
	}
	for _, t := range c.Uploads.AllowedTypes {
		if !contains([]string{"pdf", "png", "jpg", "tif"}, t) {
			return bad("uploads.allowed_types", "%q is not one of pdf, png, jpg, tif", t)
		}
	}
	switch c.Log.Format {
	case "auto", "json", "text":
	default:
		return bad("log.format", "%q, want auto, json or text", c.Log.Format)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return bad("log.level", "%q, want debug, info, warn or error", c.Log.Level)
	}
	return nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

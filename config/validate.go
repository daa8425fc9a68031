package config

import (
	"net"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// finish validates what one field's type cannot: ranges, choices and rules
// between keys. Each error names its key. It fills in only the embedded
// default's locations (store.dsn, auth.private_key_file); every "0 = auto"
// stays as written and is resolved by its method (derived.go).
func (c *Config) finish() error {
	for _, check := range []func() error{c.refuseMasked, c.finishHTTP, c.finishStore, c.finishUploads, c.finishAuth, c.finishEvents, c.finishWebhooks, c.finishRest} {
		if err := check(); err != nil {
			return err
		}
	}
	return nil
}

func (c *Config) finishHTTP() error {
	h := &c.HTTP
	if _, _, err := net.SplitHostPort(h.Addr); err != nil {
		return keyError("http.addr", "%q is not host:port", h.Addr)
	}
	if h.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(h.MetricsAddr); err != nil {
			return keyError("http.metrics_addr", "%q is not host:port", h.MetricsAddr)
		}
		if h.MetricsAddr == h.Addr {
			return keyError("http.metrics_addr", "%q is http.addr; give the metrics a listener of their own, or leave it empty", h.MetricsAddr)
		}
	}
	if h.MaxBodyBytes <= 0 {
		return keyError("http.max_body_bytes", "%s, want a size above 0", h.MaxBodyBytes)
	}
	// 0 would mean "no limit" to net/http, or a report refused at once.
	for _, d := range []struct {
		key string
		v   time.Duration
	}{
		{"http.read_header_timeout", h.ReadHeaderTimeout}, {"http.read_timeout", h.ReadTimeout},
		{"http.write_timeout", h.WriteTimeout}, {"http.idle_timeout", h.IdleTimeout},
		{"http.report_timeout", h.ReportTimeout},
	} {
		if d.v <= 0 {
			return keyError(d.key, "%s, want more than 0", d.v)
		}
	}
	if h.ShutdownGrace < 0 {
		return keyError("http.shutdown_grace", "%s, want 0 or more", h.ShutdownGrace)
	}
	if err := firstErr(
		between("http.max_in_flight", h.MaxInFlight, 1, 100_000),
		between("http.max_members", h.MaxMembers, 1, 100_000),
		between("http.max_problems", h.MaxProblems, 1, 1_000),
		between("http.max_receiving", h.MaxReceiving, 0, 1_000_000),
		between("http.max_receiving_per_partner", h.MaxReceivingPerPartner, 0, 1_000_000),
		between("http.lookup_slots", h.LookupSlots, 1, 100_000),
		between("http.lookup_slots_per_partner", h.LookupSlotsPerPartner, 1, 100_000),
		between("http.lookup_rate_per_partner", h.LookupRatePerPartner, 1, 1_000_000),
	); err != nil {
		return err
	}
	if h.LookupSlotsPerPartner > h.LookupSlots {
		return keyError("http.lookup_slots_per_partner", "%d is more than http.lookup_slots (%d)", h.LookupSlotsPerPartner, h.LookupSlots)
	}
	return c.finishReceiving()
}

// finishReceiving checks the bounds on report bodies being received
// (contract §7, "A slow body holds no report slot").
func (c *Config) finishReceiving() error {
	h := &c.HTTP
	if h.ReceivingPerPartner() > h.Receiving() {
		return keyError("http.max_receiving_per_partner", "%d is more than http.max_receiving (%d)", h.ReceivingPerPartner(), h.Receiving())
	}
	if h.MinBodyRate <= 0 {
		return keyError("http.min_body_rate", "%s, want a size above 0 (bytes per second)", h.MinBodyRate)
	}
	if h.BodyRateGrace <= 0 {
		return keyError("http.body_rate_grace", "%s, want more than 0", h.BodyRateGrace)
	}
	return nil
}

func (c *Config) finishStore() error {
	s := &c.Store
	switch s.Driver {
	case "sqlite":
		if s.DSN == "" {
			s.DSN = DefaultSQLitePath
		}
		// A MySQL DSN read as a path would create a directory named
		// after the user and password: refuse it (without echoing it).
		if looksLikeMySQLDSN(s.DSN) {
			return keyError("store.dsn", "is a MySQL DSN but store.driver is sqlite; set store.driver: mysql (%s=mysql)", EnvName("store.driver"))
		}
	case "mysql":
		if s.DSN == "" {
			return keyError("store.dsn", "required when store.driver is mysql (user:pass@tcp(host:3306)/db)")
		}
		if err := checkMySQLDSN(s.DSN); err != nil {
			return err
		}
	default:
		return keyError("store.driver", "%q, want sqlite or mysql", s.Driver)
	}
	if err := firstErr(
		between("store.max_open_conns", s.MaxOpenConns, 1, 10_000),
		between("store.max_idle_conns", s.MaxIdleConns, 0, 10_000),
		between("store.max_batch", s.MaxBatch, 1, 1_000),
		between("store.batch_writers", s.BatchWriters, 0, 64),
		between("store.lookup_conns", s.LookupConns, 1, 10_000),
	); err != nil {
		return err
	}
	if s.BusyTimeout <= 0 {
		return keyError("store.busy_timeout", "%s, want more than 0", s.BusyTimeout)
	}
	if s.LookupTimeout < time.Millisecond {
		return keyError("store.lookup_timeout", "%s, want 1ms or more", s.LookupTimeout)
	}
	if s.ReadbackTimeout <= 0 {
		return keyError("store.readback_timeout", "%s, want more than 0", s.ReadbackTimeout)
	}
	if s.Driver == "mysql" && s.LockWaitTimeout >= c.HTTP.ReportTimeout {
		return keyError("store.lock_wait_timeout", "%s, want it below http.report_timeout (%s): a report that waits on a lock must fail before its answer is due", s.LockWaitTimeout, c.HTTP.ReportTimeout)
	}
	if s.MaxIdleConns > s.MaxOpenConns {
		return keyError("store.max_idle_conns", "%d is more than store.max_open_conns (%d)", s.MaxIdleConns, s.MaxOpenConns)
	}
	return nil
}

func (c *Config) finishAuth() error {
	a := &c.Auth
	if a.PrivateKeyFile == "" {
		a.PrivateKeyFile, c.GenerateKeys = DefaultKeyFile, true
	}
	if a.Issuer == "" {
		return keyError("auth.issuer", "empty")
	}
	if a.Audience == "" {
		return keyError("auth.audience", "empty")
	}
	if err := domainRule("auth.token_ttl", domain.CheckTokenLifetime(a.TokenTTL)); err != nil {
		return err
	}
	if a.BcryptCost < 10 || a.BcryptCost > 16 {
		return keyError("auth.bcrypt_cost", "%d, want 10 to 16", a.BcryptCost)
	}
	if err := firstErr(
		between("auth.max_concurrent_hashes", a.MaxConcurrentHashes, 0, 1_024),
		between("auth.token_cache_size", a.TokenCacheSize, 0, 10_000_000),
		between("auth.user_cache_size", a.UserCacheSize, 1, 10_000_000),
	); err != nil {
		return err
	}
	if a.HashWait <= 0 {
		return keyError("auth.hash_wait", "%s, want more than 0", a.HashWait)
	}
	return domainRule("auth.rotation_overlap", domain.CheckRotationOverlap(a.RotationOverlap))
}

func (c *Config) finishRest() error {
	if c.Login.URL != "" && !isHTTPURL(c.Login.URL) {
		return keyError("login.url", "%q is not an http(s) URL", c.Login.URL)
	}
	if c.Login.Timeout <= 0 {
		return keyError("login.timeout", "%s, want more than 0", c.Login.Timeout)
	}
	switch c.Throttle.Backend {
	case "auto", "memory", "database":
	default:
		return keyError("throttle.backend", "%q, want auto, memory or database", c.Throttle.Backend)
	}
	for _, r := range []struct {
		limit, window string
		n             int
		w             time.Duration
	}{
		{"throttle.user_failures", "throttle.user_window", c.Throttle.UserFailures, c.Throttle.UserWindow},
		{"throttle.addr_failures", "throttle.addr_window", c.Throttle.AddrFailures, c.Throttle.AddrWindow},
	} {
		if r.n < 0 {
			return keyError(r.limit, "%d, want 0 (no limit) or more", r.n)
		}
		if r.n > 0 && r.w <= 0 {
			return keyError(r.window, "%s, want more than 0 while %s is %d", r.w, r.limit, r.n)
		}
	}
	if c.Idempotency.Wait < 0 {
		return keyError("idempotency.wait", "%s, want 0 or more", c.Idempotency.Wait)
	}
	if err := domainRule("idempotency.ttl", domain.CheckKeyTTL(c.Idempotency.TTL)); err != nil {
		return err
	}
	if err := firstErr(
		between("throttle.max_entries", c.Throttle.MaxEntries, 1, 100_000_000),
		between("throttle.db_conns", c.Throttle.DBConns, 1, 64),
		between("idempotency.sweep_batch", c.Idempotency.SweepBatch, 1, 100_000),
	); err != nil {
		return err
	}
	switch c.Log.Format {
	case "auto", "json", "text":
	default:
		return keyError("log.format", "%q, want auto, json or text", c.Log.Format)
	}
	switch c.Log.Level {
	case "debug", "info", "warn", "error":
	default:
		return keyError("log.level", "%q, want debug, info, warn or error", c.Log.Level)
	}
	if c.Debug.PprofAddr != "" {
		if _, _, err := net.SplitHostPort(c.Debug.PprofAddr); err != nil {
			return keyError("debug.pprof_addr", "%q is not host:port", c.Debug.PprofAddr)
		}
	}
	return nil
}

// domainRule names key in the refusal of a domain rule (domain/bounds.go)
// that checked its value; nil when the rule accepted it.
func domainRule(key string, err error) error {
	if err == nil {
		return nil
	}
	return keyError(key, "%s", err.Error())
}

func between(key string, n, lo, hi int) error {
	if n < lo || n > hi {
		return keyError(key, "%d, want %d to %d", n, lo, hi)
	}
	return nil
}

func firstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

func isHTTPURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://")
}

// Package app is the composition root of disbursementd: it reads the
// configuration, picks and wires the adapters, and runs the server. Main
// with Run and Close is what the binary and the end-to-end tests start.
package app

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/lender/disbursementd/adapters/fsupload"
	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/adapters/jwtkeys"
	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/adapters/passwords"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/adapters/upstream"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Main is one running service.
type Main struct {
	Config *config.Config
	Log    *slog.Logger

	// Set by Run.
	Addr    string // the address listened on, e.g. 127.0.0.1:41234
	Store   *gormstore.Store
	Uploads *fsupload.Store
	Keys    *jwtkeys.Keys

	srv       *http.Server
	ln        net.Listener
	served    chan error
	closeOnce sync.Once
	closeErr  error
}

// NewMain returns a Main for cfg that logs to w.
func NewMain(cfg *config.Config, w io.Writer) *Main {
	return &Main{Config: cfg, Log: NewLogger(cfg, w)}
}

// NewLogger builds the slog logger: JSON, or text when log.format is text
// or auto on a terminal.
func NewLogger(cfg *config.Config, w io.Writer) *slog.Logger {
	level := map[string]slog.Level{"debug": slog.LevelDebug, "info": slog.LevelInfo, "warn": slog.LevelWarn, "error": slog.LevelError}[cfg.Log.Level]
	opts := &slog.HandlerOptions{Level: level}
	text := cfg.Log.Format == "text"
	if cfg.Log.Format == "auto" {
		if f, ok := w.(*os.File); ok {
			if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
				text = true
			}
		}
	}
	if text {
		return slog.New(slog.NewTextHandler(w, opts))
	}
	return slog.New(slog.NewJSONHandler(w, opts))
}

// OpenStore opens the configured store and brings its schema up to date
// (store.auto_migrate) or checks that it is.
func OpenStore(ctx context.Context, cfg *config.Config) (*gormstore.Store, error) {
	st, err := gormstore.Open(cfg.Store.Driver, cfg.Store.DSN, gormstore.Options{
		MaxOpenConns: cfg.Store.MaxOpenConns, MaxIdleConns: cfg.Store.MaxIdleConns,
		ConnMaxLifetime: cfg.Store.ConnMaxLifetime, ConnMaxIdleTime: cfg.Store.ConnMaxIdleTime,
		BusyTimeout: cfg.Store.BusyTimeout, Clock: sysclock.Clock{},
	}, domain.DefaultCatalogue())
	if err != nil {
		return nil, err
	}
	return st, nil
}

// PrepareSchema applies pending migrations, or with auto_migrate off
// refuses an outdated schema.
func PrepareSchema(ctx context.Context, cfg *config.Config, st *gormstore.Store, log *slog.Logger) error {
	if !cfg.Store.AutoMigrate {
		return st.CheckSchema(ctx)
	}
	applied, err := st.Migrate(ctx)
	if len(applied) > 0 {
		log.Info("schema migrated", "versions", applied)
	}
	return err
}

// Run opens everything and starts serving in the background. It returns
// once the listener is open (Addr is then set) or on a start-up error.
func (m *Main) Run(ctx context.Context) (err error) {
	cfg := m.Config
	m.Log.Info("starting disbursementd", "version", Version(), "config", cfg.Redacted())
	defer func() {
		if err != nil {
			_ = m.closeResources()
		}
	}()

	m.Store, err = OpenStore(ctx, cfg)
	if err != nil {
		return err
	}
	schemaReady := make(chan struct{})
	if err := PrepareSchema(ctx, cfg, m.Store, m.Log); err != nil {
		if errors.Is(err, gormstore.ErrOutdatedSchema) || cfg.Store.Driver == gormstore.SQLite {
			return err
		}
		// The database may come up later: serve, stay not ready, retry.
		m.Log.Error("database not usable at start; retrying in the background", "error", err.Error())
		go m.retrySchema(schemaReady)
	} else {
		close(schemaReady)
	}

	if cfg.Uploads.Dir == config.DefaultUploadsDir {
		if err := os.MkdirAll(cfg.Uploads.Dir, 0o750); err != nil {
			return fmt.Errorf("uploads.dir: %w", err)
		}
	}
	if m.Uploads, err = fsupload.Open(cfg.Uploads.Dir); err != nil {
		return fmt.Errorf("uploads.dir: %w", err)
	}

	if m.Keys, err = LoadKeys(cfg, m.Log); err != nil {
		return err
	}
	hasher, err := passwords.New(cfg.Auth.BcryptCost, passwords.Options{})
	if err != nil {
		return err
	}
	policy := Policy(cfg)
	clock := sysclock.Clock{}
	login := &ports.Login{Users: m.Store, Hasher: hasher, Issuer: m.Keys, Policy: policy, Clock: clock}
	throttle, err := memstate.NewThrottle(100_000)
	if err != nil {
		return err
	}
	tokens, err := memstate.NewTokenCache(max(cfg.Auth.TokenCacheSize, 1))
	if err != nil {
		return err
	}
	statuses, err := memstate.NewUserStatusCache(10_000)
	if err != nil {
		return err
	}
	newAuth := func(x ports.CredentialExchange) *ports.Auth {
		return &ports.Auth{Exchanger: x, Verifier: m.Keys, Policy: policy, Users: m.Store, Clock: clock,
			Throttle: throttle,
			PerUser:  ports.ThrottleRule{Limit: cfg.Throttle.UserFailures, Window: cfg.Throttle.UserWindow},
			PerAddr:  ports.ThrottleRule{Limit: cfg.Throttle.AddrFailures, Window: cfg.Throttle.AddrWindow},
			Tokens:   tokens, Statuses: statuses, Staleness: cfg.Auth.UserStaleness}
	}
	metrics := httpapi.NewMetrics()
	var exchanger ports.CredentialExchange = login
	if cfg.Login.URL != "" {
		up := upstream.New(cfg.Login.URL, cfg.Login.Timeout)
		up.Observe = metrics.ObserveUpstream
		exchanger = up
	}
	srv := httpapi.New(httpapi.Server{
		Auth:           newAuth(exchanger),
		TrustedProxies: cfg.HTTP.TrustedProxies,
		Login:          newAuth(login),
		Reports: &ports.Reports{
			Catalogue: domain.DefaultCatalogue(),
			Rules:     domain.FileRules{Allowed: cfg.Uploads.AllowedTypes, MaxBytes: cfg.Uploads.MaxFileBytes},
			Store:     m.Store, Uploads: m.Uploads, Clock: clock,
			KeyTTL: cfg.Idempotency.TTL, Wait: cfg.Idempotency.Wait, Poll: 20 * time.Millisecond,
			Stale: cfg.HTTP.ReportTimeout + 5*time.Second,
		},
		JWKS: m.Keys.JWKS,
		Checks: []httpapi.Check{
			{Name: "store", Fn: func(ctx context.Context) error {
				select {
				case <-schemaReady:
				default:
					return errors.New("schema not ready")
				}
				return m.Store.Ping(ctx)
			}},
			{Name: "uploads", Fn: m.Uploads.Check},
			{Name: "keys", Fn: func(context.Context) error { return nil }},
		},
		OpenAPI: OpenAPI(),
		Log:     m.Log, MaxBody: cfg.HTTP.MaxBodyBytes, Timeout: cfg.HTTP.ReportTimeout, TokenTTL: cfg.Auth.TokenTTL,
	}, metrics)

	m.ln, err = net.Listen("tcp", cfg.HTTP.Addr)
	if err != nil {
		return fmt.Errorf("http.addr: listen on %s: %w", cfg.HTTP.Addr, err)
	}
	m.Addr = m.ln.Addr().String()
	m.srv = &http.Server{
		Handler:           srv.Handler(),
		ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
		ReadTimeout:       cfg.HTTP.ReadTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout,
		IdleTimeout:       cfg.HTTP.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(m.Log.Handler(), slog.LevelWarn),
	}
	m.served = make(chan error, 1)
	go func() { m.served <- m.srv.Serve(m.ln) }()
	m.Log.Info("listening", "addr", m.Addr, "store", cfg.Store.Driver, "uploads", cfg.Uploads.Dir,
		"login", loginName(cfg), "kid", m.Keys.KeyID())
	return nil
}

func loginName(cfg *config.Config) string {
	if cfg.Login.URL == "" {
		return "built-in"
	}
	return cfg.Login.URL
}

func (m *Main) retrySchema(ready chan struct{}) {
	for delay := time.Second; ; delay = min(delay*2, 30*time.Second) {
		time.Sleep(delay)
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		err := PrepareSchema(ctx, m.Config, m.Store, m.Log)
		cancel()
		if err == nil {
			m.Log.Info("database reachable; schema ready")
			close(ready)
			return
		}
		m.Log.Warn("database still not usable", "error", err.Error(), "retry_in", delay.String())
	}
}

// Wait blocks until the server stops by itself (an error) or ctx ends.
func (m *Main) Wait(ctx context.Context) error {
	select {
	case err := <-m.served:
		if errors.Is(err, http.ErrServerClosed) {
			return nil
		}
		return err
	case <-ctx.Done():
		return nil
	}
}

// Close stops accepting, lets in-flight requests finish within
// http.shutdown_grace, then closes the store and the upload directory.
func (m *Main) Close() error {
	m.closeOnce.Do(func() {
		var errs []error
		if m.srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), m.Config.HTTP.ShutdownGrace)
			if err := m.srv.Shutdown(ctx); err != nil {
				errs = append(errs, fmt.Errorf("shutdown: %w", err))
				_ = m.srv.Close()
			}
			cancel()
		}
		errs = append(errs, m.closeResources())
		m.closeErr = errors.Join(errs...)
		m.Log.Info("stopped")
	})
	return m.closeErr
}

func (m *Main) closeResources() error {
	var errs []error
	if m.Store != nil {
		errs = append(errs, m.Store.Close())
	}
	if m.Uploads != nil {
		errs = append(errs, m.Uploads.Close())
	}
	return errors.Join(errs...)
}

// Policy is the token policy of the configuration.
func Policy(cfg *config.Config) domain.TokenPolicy {
	return domain.TokenPolicy{Issuer: cfg.Auth.Issuer, Audience: cfg.Auth.Audience, Lifetime: cfg.Auth.TokenTTL, Leeway: cfg.Auth.Leeway}
}

// LoadKeys loads (or on the embedded default, generates) the signing key
// and the trusted public keys.
func LoadKeys(cfg *config.Config, log *slog.Logger) (*jwtkeys.Keys, error) {
	priv, created, err := jwtkeys.LoadOrGenerate(cfg.Auth.PrivateKeyFile, cfg.GenerateKeys)
	if err != nil {
		return nil, fmt.Errorf("auth.private_key_file: %w", err)
	}
	if created {
		log.Info("generated a new RSA key pair", "private_key_file", cfg.Auth.PrivateKeyFile,
			"public_key_file", filepath.Join(filepath.Dir(cfg.Auth.PrivateKeyFile), "public.pem"))
	}
	var trusted []*rsa.PublicKey
	if cfg.Auth.PublicKeysFile != "" {
		if trusted, err = jwtkeys.ReadPublicKeys(cfg.Auth.PublicKeysFile); err != nil {
			return nil, fmt.Errorf("auth.public_keys_file: %w", err)
		}
	}
	keys, err := jwtkeys.New(priv, trusted, Policy(cfg), time.Now)
	if err != nil {
		return nil, fmt.Errorf("auth: %w", err)
	}
	return keys, nil
}

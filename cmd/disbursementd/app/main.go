// Package app is the composition root of disbursementd: it reads the
// configuration, picks and wires the adapters, and runs the server. Main
// with Run and Close is what the binary and the end-to-end tests start.
package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/adapters/jwtkeys"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Main is one running service.
type Main struct {
	Config *config.Config
	Log    *slog.Logger
	Clock  ports.Clock

	// ReadinessInterval is how often the readiness checks run without a
	// probe (0: every 10 s); tests shorten it.
	ReadinessInterval time.Duration

	// Set by Run.
	Addr        string // the address listened on, e.g. 127.0.0.1:41234
	MetricsAddr string // http.metrics_addr's listener, when set
	Store       *gormstore.Store
	Uploads     Uploads
	Keys        *jwtkeys.Keys

	pruner      throttlePruner // the database throttle, pruned by the sweep; nil in memory
	srv         *http.Server
	internal    []internalListener // /metrics (http.metrics_addr) and pprof
	internalSrv []*http.Server
	api         *httpapi.Server
	ln          net.Listener
	served      chan error
	stop        context.CancelFunc // ends the background work (sweep, schema retries)
	background  sync.WaitGroup
	closers     []io.Closer
	closeOnce   sync.Once
	closeErr    error
}

// NewMain returns a Main for cfg that logs to w.
func NewMain(cfg *config.Config, w io.Writer) *Main {
	return &Main{Config: cfg, Log: NewLogger(cfg, w), Clock: sysclock.Clock{}}
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

// Run opens everything and starts serving in the background. It returns
// once the listener is open (Addr is then set) or on a start-up error. The
// address is taken first, so a port in use fails before any file, database
// or key is created.
func (m *Main) Run(ctx context.Context) (err error) {
	cfg := m.Config
	m.Log.Info("starting disbursementd", "version", Version(), "config", cfg.Redacted())
	defer func() {
		if err != nil {
			_ = m.closeResources()
		}
	}()
	if m.ln, err = net.Listen("tcp", cfg.HTTP.Addr); err != nil {
		return fmt.Errorf("http.addr (%s): listen on %s: %w", config.EnvName("http.addr"), cfg.HTTP.Addr, err)
	}
	m.closers = append(m.closers, m.ln)
	m.Addr = m.ln.Addr().String()
	if err := m.listenInternal(); err != nil {
		return err
	}

	bg, stop := context.WithCancel(context.WithoutCancel(ctx))
	m.stop = stop
	w, err := m.wire(bg)
	if err != nil {
		return err
	}
	m.api = w.http
	m.serveInternal(w.metrics.Handler(), w.admin)
	m.srv = &http.Server{
		Handler:           w.http.Handler(),
		ReadHeaderTimeout: cfg.HTTP.ReadHeaderTimeout,
		ReadTimeout:       cfg.HTTP.ReadTimeout,
		WriteTimeout:      cfg.HTTP.WriteTimeout,
		IdleTimeout:       cfg.HTTP.IdleTimeout,
		MaxHeaderBytes:    64 << 10,
		ErrorLog:          slog.NewLogLogger(m.Log.Handler(), slog.LevelWarn),
	}
	m.served = make(chan error, 1)
	go func() { m.served <- m.srv.Serve(m.ln) }()
	m.startSweep(bg, w.sweep, w.metrics)
	m.goBackground(func() { m.watchReadiness(bg) })
	warnBroadProxies(m.Log, cfg.HTTP.TrustedProxies)
	m.Log.Info("listening", "addr", m.Addr, "store", cfg.Store.Driver, "uploads", cfg.Uploads.Backend,
		"login", loginName(cfg), "throttle", cfg.ThrottleBackend(), "kid", m.Keys.KeyID())
	return nil
}

func loginName(cfg *config.Config) string {
	if cfg.Login.URL == "" {
		return "built-in"
	}
	return domain.MaskCredentials(cfg.Login.URL)
}

// go runs fn in the background until Close.
func (m *Main) goBackground(fn func()) {
	m.background.Add(1)
	go func() {
		defer m.background.Done()
		fn()
	}()
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
// http.shutdown_grace, stops the background work, then closes the store
// and the upload store. Nothing Run started outlives it.
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
			// Reports run on contexts of their own, which neither Shutdown
			// nor Close ends: cancel those still running and wait for them
			// before the store and the uploads close under them.
			ctx, cancel = context.WithTimeout(context.Background(), stopWait)
			if err := m.api.Stop(ctx); err != nil {
				errs = append(errs, fmt.Errorf("stop reports: %w", err))
			}
			cancel()
		}
		for _, srv := range m.internalSrv {
			_ = srv.Close()
		}
		errs = append(errs, m.closeResources())
		m.closeErr = errors.Join(errs...)
		m.Log.Info("stopped")
	})
	return m.closeErr
}

// stopWait bounds how long Close waits for cancelled reports to return
// (a statement or a PUT under way ends at its next network read).
const stopWait = 10 * time.Second

// closeResources stops the background work and closes what Run opened,
// the last opened first.
func (m *Main) closeResources() error {
	if m.stop != nil {
		m.stop()
	}
	m.background.Wait()
	var errs []error
	for i := len(m.closers) - 1; i >= 0; i-- {
		if err := m.closers[i].Close(); err != nil && !errors.Is(err, net.ErrClosed) {
			errs = append(errs, err)
		}
	}
	m.closers = nil
	return errors.Join(errs...)
}

// retry runs fn until it succeeds or ctx ends, backing off to 30 s.
func retry(ctx context.Context, fn func(context.Context) error, failed func(error, time.Duration)) bool {
	for delay := time.Second; ; delay = min(delay*2, 30*time.Second) {
		select {
		case <-ctx.Done():
			return false
		case <-time.After(delay):
		}
		attempt, cancel := context.WithTimeout(ctx, 30*time.Second)
		err := fn(attempt)
		cancel()
		if err == nil {
			return true
		}
		failed(err, delay)
	}
}

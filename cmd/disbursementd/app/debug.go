package app

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/config"
)

// internalListener is a listener for operators, never the partner-facing
// one: /metrics when http.metrics_addr is set, net/http/pprof when
// debug.pprof_addr is; one listener serves both when they are the same
// address.
type internalListener struct {
	ln             net.Listener
	metrics, pprof bool
}

// listenInternal takes the internal addresses; Run calls it before it
// creates anything, as for http.addr.
func (m *Main) listenInternal() error {
	cfg := m.Config
	listen := func(key, addr string, metrics, pprof bool) error {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			return fmt.Errorf("%s (%s): listen on %s: %w", key, config.EnvName(key), addr, err)
		}
		m.closers = append(m.closers, ln)
		m.internal = append(m.internal, internalListener{ln: ln, metrics: metrics, pprof: pprof})
		if metrics {
			m.MetricsAddr = ln.Addr().String()
		}
		return nil
	}
	metricsAddr, pprofAddr := cfg.HTTP.MetricsAddr, cfg.Debug.PprofAddr
	if metricsAddr != "" {
		if err := listen("http.metrics_addr", metricsAddr, true, pprofAddr == metricsAddr); err != nil {
			return err
		}
	}
	if pprofAddr != "" && pprofAddr != metricsAddr {
		return listen("debug.pprof_addr", pprofAddr, false, true)
	}
	return nil
}

// serveInternal serves the internal listeners: metrics is /metrics, and
// admin, when not nil, the back office's decision API (contract §11:
// http.metrics_addr's listener only, never http.addr's, nor pprof's own).
func (m *Main) serveInternal(metrics, admin http.Handler) {
	for _, l := range m.internal {
		mux := http.NewServeMux()
		if l.metrics {
			mux.Handle("/metrics", metrics)
			m.Log.Info("serving /metrics on its own listener (http.metrics_addr), not on http.addr", "addr", l.ln.Addr().String())
			if admin != nil {
				mux.Handle(httpapi.AdminPrefix, admin)
				m.Log.Info("serving the decision API (back-office clients) on http.metrics_addr's listener", "addr", l.ln.Addr().String(), "path", httpapi.AdminPrefix)
			}
		}
		if l.pprof {
			mux.HandleFunc("/debug/pprof/", pprof.Index)
			mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
			mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
			mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
			mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
			m.Log.Warn("serving pprof; keep this address private", "addr", l.ln.Addr().String())
		}
		// A decision's body is bounded (httpapi); ReadTimeout bounds the
		// time it may take to arrive, as on http.addr.
		srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: m.Config.HTTP.ReadTimeout}
		m.internalSrv = append(m.internalSrv, srv)
		go func() { _ = srv.Serve(l.ln) }()
	}
}

// readinessEvery is how often the service runs its readiness checks by
// itself when no probe has run them since, so that disbursementd_ready
// is current for a scrape without a probe.
const readinessEvery = 10 * time.Second

// watchReadiness keeps disbursementd_ready current until ctx ends: a
// first run at once, then one per ReadinessInterval without a probe.
func (m *Main) watchReadiness(ctx context.Context) {
	every := m.ReadinessInterval
	if every <= 0 {
		every = readinessEvery
	}
	t := time.NewTicker(every)
	defer t.Stop()
	m.api.Readiness(ctx)
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			m.api.RefreshReadiness(ctx, every)
		}
	}
}

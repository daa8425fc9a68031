package app

import (
	"fmt"
	"net"
	"net/http"
	"net/http/pprof"
	"time"

	"github.com/lender/disbursementd/config"
)

// serveDebug serves net/http/pprof on its own address (debug.pprof_addr,
// off by default): profiles under load without exposing them on the
// partner-facing listener.
func (m *Main) serveDebug(addr string) error {
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("debug.pprof_addr (%s): listen on %s: %w", config.EnvName("debug.pprof_addr"), addr, err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/cmdline", pprof.Cmdline)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	m.debug = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = m.debug.Serve(ln) }()
	m.Log.Warn("serving pprof; keep this address private", "addr", ln.Addr().String())
	return nil
}

// Package httpapi is the HTTP adapter (chi): the legacy partner endpoint
// /api/partner_api.php, the built-in login over HTTP, the JWKS, probes,
// metrics and the OpenAPI document.
package httpapi

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lender/disbursementd/ports"
)

// PartnerPath is the legacy path of both partner operations.
const PartnerPath = "/api/partner_api.php"

// Check is one readiness check.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// Server holds what the handlers need.
type Server struct {
	Auth     *ports.Auth
	Login    *ports.Auth // the built-in login served at /auth/login
	Reports  *ports.Reports
	JWKS     func() ([]byte, error)
	Checks   []Check
	OpenAPI  []byte
	Log      *slog.Logger
	MaxBody  int64         // request body limit (report POST)
	Timeout  time.Duration // how long a report may take once accepted
	TokenTTL time.Duration
	// TrustedProxies may set X-Forwarded-For; nobody else can.
	TrustedProxies []netip.Prefix
	metrics        *Metrics
}

// New returns a server with its metrics.
func New(s Server, m *Metrics) *Server {
	s.metrics = m
	if s.Log == nil {
		s.Log = slog.Default()
	}
	if s.MaxBody <= 0 {
		s.MaxBody = 32 << 20
	}
	if s.Timeout <= 0 {
		s.Timeout = 60 * time.Second
	}
	if s.TokenTTL <= 0 {
		s.TokenTTL = 24 * time.Hour
	}
	return &s
}

// Handler returns the routes.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	r.Use(s.observe, cors)
	r.NotFound(func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusNotFound, map[string]any{"status": 404, "message": "Ruta no encontrada"})
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Allow", "GET, POST, OPTIONS")
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"status": 405, "message": "Método no permitido"})
	})
	r.Get(PartnerPath, s.handleToken)
	r.Post(PartnerPath, s.handleReport)
	r.Post("/auth/login", s.handleLogin)
	r.Get("/.well-known/jwks.json", s.handleJWKS)
	r.Get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	r.Get("/readyz", s.handleReady)
	r.Method(http.MethodGet, "/metrics", s.metrics.Handler())
	r.Get("/openapi.yaml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
		_, _ = w.Write(s.OpenAPI)
	})
	return r
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil {
		status, data = http.StatusInternalServerError, []byte(`{"status":500,"message":"Error interno"}`)
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

func (s *Server) handleJWKS(w http.ResponseWriter, _ *http.Request) {
	data, err := s.JWKS()
	if err != nil {
		writeJSON(w, http.StatusInternalServerError, map[string]any{"status": 500, "message": "Error interno"})
		return
	}
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Header().Set("Cache-Control", "public, max-age=300")
	_, _ = w.Write(data)
}

func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 3*time.Second)
	defer cancel()
	checks := map[string]string{}
	ready := true
	for _, c := range s.Checks {
		if err := c.Fn(ctx); err != nil {
			ready = false
			checks[c.Name] = "fail"
			info(r).detail += c.Name + ": " + err.Error() + "; "
			continue
		}
		checks[c.Name] = "ok"
	}
	if !ready {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not_ready", "checks": checks})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
}

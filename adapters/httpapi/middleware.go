package httpapi

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"github.com/go-chi/chi/v5"
)

// reqInfo collects what the request log line reports; handlers fill it.
type reqInfo struct {
	id       string
	user     string
	reportID int64
	detail   string
	err      error
}

type ctxKey struct{}

func info(r *http.Request) *reqInfo {
	if ri, ok := r.Context().Value(ctxKey{}).(*reqInfo); ok {
		return ri
	}
	return &reqInfo{}
}

type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int64
}

func (w *statusWriter) WriteHeader(code int) {
	if w.status == 0 {
		w.status = code
	}
	w.ResponseWriter.WriteHeader(code)
}

func (w *statusWriter) Write(b []byte) (int, error) {
	if w.status == 0 {
		w.status = http.StatusOK
	}
	n, err := w.ResponseWriter.Write(b)
	w.bytes += int64(n)
	return n, err
}

// validClientID accepts an inbound X-Request-Id for the log only when it
// is short and plain; the server's own id is always generated here.
func validClientID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}

// observe gives each request an id, answers panics with a JSON 500, and
// logs one line per request.
func (s *Server) observe(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{id: newRequestID()}
		w.Header().Set("X-Request-Id", ri.id)
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri))
		s.metrics.inFlight(1)
		defer func() {
			s.metrics.inFlight(-1)
			if p := recover(); p != nil {
				s.Log.Error("panic", "request_id", ri.id, "panic", p, "stack", string(debug.Stack()))
				if sw.status == 0 {
					writeJSON(sw, http.StatusInternalServerError, map[string]any{"status": 500, "message": "Error interno"})
				}
			}
			route := chi.RouteContext(r.Context()).RoutePattern()
			if route == "" {
				route = "unmatched"
			}
			d := time.Since(start)
			s.metrics.request(route, r.Method, sw.status, d)
			attrs := []any{"request_id", ri.id, "method", r.Method, "route", route, "status", sw.status,
				"duration_ms", float64(d.Microseconds()) / 1000, "bytes_in", r.ContentLength, "bytes_out", sw.bytes,
				"remote", r.RemoteAddr}
			if cid := r.Header.Get("X-Request-Id"); validClientID(cid) {
				attrs = append(attrs, "client_request_id", cid)
			}
			if ri.user != "" {
				attrs = append(attrs, "partner_user", ri.user)
			}
			if ri.reportID != 0 {
				attrs = append(attrs, "report_id", ri.reportID)
			}
			if ri.detail != "" {
				attrs = append(attrs, "detail", ri.detail)
			}
			level := slog.LevelInfo
			if sw.status >= 500 {
				level = slog.LevelError
				if ri.err != nil {
					attrs = append(attrs, "error", ri.err.Error())
				}
			}
			s.Log.Log(r.Context(), level, "request", attrs...)
		}()
		next.ServeHTTP(sw, r)
	})
}

// cors opens the API to any origin, on every response, errors included.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", "X-Request-Id, Retry-After, WWW-Authenticate")
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", "GET, POST, OPTIONS")
			h.Set("Access-Control-Allow-Headers", "Content-Type, Authentication-Type, Idempotency-Key")
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// newRequestID returns 20 random hex digits.
func newRequestID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

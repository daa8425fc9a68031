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

	"github.com/lender/disbursementd/domain"
)

// reqInfo collects what the request log line reports; handlers fill it.
type reqInfo struct {
	id       string
	user     string // a known user only (see ports.Issued.LogUser)
	client   string // the client address used for throttling
	outcome  string
	reportID int64
	detail   string
	err      error
	quiet    bool // a repeated refusal already logged in this window
	// What support needs to find a report and tell why it was refused:
	// the answer's code, the problems it listed, the W3C trace id.
	code     string
	problems []domain.Problem
	traceID  string
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

// Unwrap lets http.ResponseController reach the connection (the body
// rate guard sets its read deadline).
func (w *statusWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

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

// observe is observeRoutes without known routes.
func (s *Server) observe(next http.Handler) http.Handler { return s.observeRoutes(&routes{}, next) }

// observeRoutes gives each request an id, answers panics with a JSON 500,
// counts it in the metrics and logs one line for it (none for a refusal
// already logged in its window). A request the router did not route (a
// preflight, a 404 or a 405) is labelled with the pattern of known that
// its path matches, or "unmatched".
func (s *Server) observeRoutes(known *routes, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ri := &reqInfo{id: newRequestID(), traceID: traceID(r.Header)}
		w.Header().Set("X-Request-Id", ri.id)
		sw := &statusWriter{ResponseWriter: w}
		r = r.WithContext(context.WithValue(r.Context(), ctxKey{}, ri))
		s.metrics.InFlight(1)
		defer func() {
			s.metrics.InFlight(-1)
			if p := recover(); p != nil {
				s.Log.Error("panic", "request_id", ri.id, "panic", p, "stack", string(debug.Stack()))
				switch {
				case sw.status != 0:
				case r.URL.Path == "/v1/token":
					writeRaw(sw, http.StatusInternalServerError, []byte(`{"error":"server_error"}`+"\n"))
				case isV1(r.URL.Path):
					writeProblem(sw, r, http.StatusInternalServerError, "internal_error", msgInternal, nil)
				default:
					internalError(sw, r.Method == http.MethodPost && r.URL.Path == PartnerPath)
				}
			}
			route := chi.RouteContext(r.Context()).RoutePattern()
			if route == "" {
				route = known.pattern(r.URL.Path)
			}
			if route == "" {
				route = "unmatched"
			}
			d := time.Since(start)
			s.metrics.Request(route, methodLabel(r.Method), sw.status, d)
			if !ri.quiet {
				s.logRequest(r, ri, sw, route, d)
			}
		}()
		next.ServeHTTP(sw, r)
	})
}

func (s *Server) logRequest(r *http.Request, ri *reqInfo, sw *statusWriter, route string, d time.Duration) {
	attrs := make([]slog.Attr, 0, 16)
	attrs = append(attrs, slog.String("request_id", ri.id), slog.String("method", methodLabel(r.Method)),
		slog.String("route", route), slog.Int("status", sw.status),
		slog.Float64("duration_ms", float64(d.Microseconds())/1000), slog.Int64("bytes_in", r.ContentLength),
		slog.Int64("bytes_out", sw.bytes), slog.String("remote", r.RemoteAddr))
	if cid := r.Header.Get("X-Request-Id"); validClientID(cid) {
		attrs = append(attrs, slog.String("client_request_id", cid))
	}
	for _, a := range []struct{ k, v string }{{"partner_user", ri.user}, {"client", ri.client}, {"outcome", ri.outcome}, {"detail", ri.detail}} {
		if a.v != "" {
			attrs = append(attrs, slog.String(a.k, a.v))
		}
	}
	if ri.reportID != 0 {
		attrs = append(attrs, slog.Int64("report_id", ri.reportID))
	}
	attrs = s.supportAttrs(r, ri, attrs)
	level := slog.LevelInfo
	switch {
	case sw.status >= 500:
		level = slog.LevelError
		if ri.err != nil {
			attrs = append(attrs, slog.String("error", ri.err.Error()))
		}
	case sw.status == http.StatusUnauthorized || sw.status == http.StatusTooManyRequests || ri.outcome == "invalid_client":
		level = slog.LevelWarn
	case sw.status < 400 && quietRoutes[route]:
		level = slog.LevelDebug
	}
	s.Log.LogAttrs(r.Context(), level, "request", attrs...)
}

// The CORS header lists: the legacy ones exactly as they were, and those
// of /v1 (contract §8), where a page sends Authorization and reads
// Location.
const (
	exposeLegacy = "X-Request-Id, Retry-After, WWW-Authenticate, Idempotent-Replayed"
	allowLegacy  = "Content-Type, Authentication-Type, Idempotency-Key"
	exposeV1     = "Location, Idempotent-Replayed, Retry-After, X-Request-Id, WWW-Authenticate, Link, Next-Cursor"
	allowV1      = "Authorization, Content-Type, Idempotency-Key, X-Request-Id"
	methods      = "GET, POST, OPTIONS"
	methodsV1    = "GET, POST, DELETE, OPTIONS" // DELETE /v1/webhook_endpoints/{id}
)

// cors opens the API to any origin, on every response, errors included,
// and answers every preflight.
func cors(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		expose, allow, methods := exposeLegacy, allowLegacy, methods
		if isV1(r.URL.Path) {
			expose, allow, methods = exposeV1, allowV1, methodsV1
		}
		h.Set("Access-Control-Allow-Origin", "*")
		h.Set("Access-Control-Expose-Headers", expose)
		if r.Method == http.MethodOptions {
			h.Set("Access-Control-Allow-Methods", methods)
			h.Set("Access-Control-Allow-Headers", allow)
			h.Set("Access-Control-Max-Age", "86400")
			w.WriteHeader(http.StatusNoContent)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// framing closes the connection after any request that came with a
// Transfer-Encoding (RFC 9112 §6.1). Go's server answers such a request by
// its Transfer-Encoding and drops a Content-Length sent beside it before a
// handler can see it, so every such request is treated as the suspicious
// one: nothing sent after it on that connection is read as another
// request, whatever a proxy in front believed the body's length was.
func framing(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(r.TransferEncoding) > 0 {
			w.Header().Set("Connection", "close")
		}
		next.ServeHTTP(w, r)
	})
}

// newRequestID returns 20 random hex digits: the X-Request-Id form the
// OpenAPI document publishes (other random ids are crypto/rand.Text).
func newRequestID() string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// methodLabel maps a request's method, which a client chooses freely, to
// one of GET, POST, DELETE, OPTIONS, HEAD or other: the method label of
// the request metrics and of the log line comes from a fixed set
// (contract §7).
func methodLabel(method string) string {
	switch method {
	case http.MethodGet, http.MethodPost, http.MethodDelete, http.MethodOptions, http.MethodHead:
		return method
	}
	return "other"
}

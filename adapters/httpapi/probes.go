package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// maxErrorBody bounds every 4xx answer (contract §7), whatever was sent.
const maxErrorBody = 64 << 10

func writeJSON(w http.ResponseWriter, status int, v any) {
	data, err := json.Marshal(v)
	if err != nil || status >= 400 && status < 500 && len(data) > maxErrorBody {
		// Unreachable with the bounds on keys and problems; kept so no
		// answer can grow with what a client sent.
		_, isReport := v.(reportReply)
		internalError(w, isReport)
		return
	}
	writeRaw(w, status, append(data, '\n'))
}

// internalError answers 500, with the status member a string on a
// report's answer and an integer elsewhere (the package's rule).
func internalError(w http.ResponseWriter, report bool) {
	if report {
		writeRaw(w, http.StatusInternalServerError, []byte(`{"status":"500","message":"`+msgInternal+`"}`+"\n"))
		return
	}
	writeRaw(w, http.StatusInternalServerError, []byte(`{"status":500,"message":"`+msgInternalShort+`"}`+"\n"))
}

// writeNoContent answers 204: done, nothing to say.
func writeNoContent(w http.ResponseWriter) { w.WriteHeader(http.StatusNoContent) }

func writeRaw(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func (s *Server) handleJWKS(w http.ResponseWriter, r *http.Request) {
	data, err := s.JWKS()
	if err != nil {
		info(r).err = err
		writeJSON(w, http.StatusInternalServerError, map[string]any{"status": 500, "message": msgInternalShort})
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeRaw(w, http.StatusOK, data)
}

// handleReady runs every check; the answer names the failing ones, and
// the log line says why.
func (s *Server) handleReady(w http.ResponseWriter, r *http.Request) {
	checks, failures, ready := s.Readiness(r.Context())
	info(r).detail += failures
	w.Header().Set("Cache-Control", "no-store")
	if !ready {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not_ready", "checks": checks})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
}

// readyTimeout bounds one run of the readiness checks.
const readyTimeout = 3 * time.Second

// Readiness runs every check once and records each outcome in
// disbursementd_ready{check}: /readyz calls it, and so does the service's
// own timer, so that a scrape sees readiness without a probe. It returns
// each check's "ok" or "fail", the failures' reasons ("name: error; ")
// and whether all passed.
func (s *Server) Readiness(ctx context.Context) (checks map[string]string, failures string, ready bool) {
	s.readyAt.Store(time.Now().UnixNano())
	ctx, cancel := context.WithTimeout(ctx, readyTimeout)
	defer cancel()
	checks, ready = map[string]string{}, true
	for _, c := range s.Checks {
		err := c.Fn(ctx)
		s.metrics.Ready(c.Name, err == nil)
		if err != nil {
			ready = false
			checks[c.Name] = "fail"
			failures += c.Name + ": " + err.Error() + "; "
			continue
		}
		checks[c.Name] = "ok"
	}
	return checks, failures, ready
}

// RefreshReadiness runs Readiness unless a run started within maxAge (a
// probe's): the timer that keeps disbursementd_ready current adds no
// checks where probes already run them.
func (s *Server) RefreshReadiness(ctx context.Context, maxAge time.Duration) {
	if time.Since(time.Unix(0, s.readyAt.Load())) < maxAge {
		return
	}
	s.Readiness(ctx)
}

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
		writeRaw(w, http.StatusInternalServerError, []byte(`{"status":"500","message":"Error interno; intente de nuevo más tarde"}`+"\n"))
		return
	}
	writeRaw(w, http.StatusInternalServerError, []byte(`{"status":500,"message":"Error interno"}`+"\n"))
}

func writeRaw(w http.ResponseWriter, status int, data []byte) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write(data)
}

func (s *Server) handleJWKS(w http.ResponseWriter, r *http.Request) {
	data, err := s.JWKS()
	if err != nil {
		info(r).err = err
		writeJSON(w, http.StatusInternalServerError, map[string]any{"status": 500, "message": "Error interno"})
		return
	}
	w.Header().Set("Cache-Control", "public, max-age=300")
	writeRaw(w, http.StatusOK, data)
}

// handleReady runs every check; the answer names the failing ones, and
// the log line says why.
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
	w.Header().Set("Cache-Control", "no-store")
	if !ready {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"status": "not_ready", "checks": checks})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"status": "ready", "checks": checks})
}

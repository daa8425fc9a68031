package httpapi

import (
	"log/slog"
	"net/http"

	"github.com/lender/disbursementd/domain"
)

// What a request line carries for support, who must find "yesterday's
// refused report" from what the partner quotes (the X-Request-Id, the
// Idempotency-Key, a trace id) and tell why it was refused, without the
// log holding what the partner sent.

// quietRoutes are the probes and the scrape: logged at DEBUG when they
// succeed, as a probe every few seconds would bury the report lines.
var quietRoutes = map[string]bool{"/healthz": true, "/readyz": true, "/metrics": true}

// problemLog is a problem as the log shows it: the field's name and the
// code, never the value nor the message (which may quote it).
type problemLog struct {
	Field string `json:"field"`
	Code  string `json:"code"`
}

// supportAttrs appends to attrs: the Idempotency-Key's HashPrefix
// (idempotency_key_sha256; never the key, which may hold a credit or
// identification number), the W3C trace id, the refusal's code, and the
// problems of a refused report, at most Limits.MaxProblems of them as in
// errors[], then how many more there were (problems_more).
func (s *Server) supportAttrs(r *http.Request, ri *reqInfo, attrs []slog.Attr) []slog.Attr {
	if key := r.Header.Get("Idempotency-Key"); key != "" {
		attrs = append(attrs, slog.String("idempotency_key_sha256", domain.HashPrefix(key)))
	}
	if ri.traceID != "" {
		attrs = append(attrs, slog.String("trace_id", ri.traceID))
	}
	if ri.code != "" {
		attrs = append(attrs, slog.String("code", ri.code))
	}
	if len(ri.problems) == 0 {
		return attrs
	}
	shown := ri.problems[:min(len(ri.problems), s.Limits.MaxProblems)]
	list := make([]problemLog, len(shown))
	for i, p := range shown {
		list[i] = problemLog{Field: domain.ProblemName(p), Code: p.Code}
	}
	attrs = append(attrs, slog.Any("problems", list))
	if more := len(ri.problems) - len(shown); more > 0 {
		attrs = append(attrs, slog.Int("problems_more", more))
	}
	return attrs
}

// traceID returns the trace id of the request's W3C traceparent header
// (Trace Context, version 00), or "" when there is none or it is not
// valid: one header of exactly 55 characters, "00-" then 32 lower-case
// hex digits of trace id, "-", 16 of parent id, "-", 2 of flags, and
// neither id all zeros. Anything else is ignored, as the specification
// says a receiver must (it then starts a new trace; we log none).
func traceID(h http.Header) string {
	values := h.Values("Traceparent")
	if len(values) != 1 {
		return ""
	}
	v := values[0]
	if len(v) != 55 || v[0] != '0' || v[1] != '0' || v[2] != '-' || v[35] != '-' || v[52] != '-' {
		return ""
	}
	trace, parent, flags := v[3:35], v[36:52], v[53:55]
	if !lowerHex(trace) || !lowerHex(parent) || !lowerHex(flags) || allZeros(trace) || allZeros(parent) {
		return ""
	}
	return trace
}

func lowerHex(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

func allZeros(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '0' {
			return false
		}
	}
	return true
}

package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/lender/disbursementd/domain"
)

// problemReply is an RFC 9457 problem: every /v1 error but the token
// endpoint's. code is the legacy answer's code; reason, on a refused
// token only, is why in one word (the word the log line has); errors
// lists the field problems, bounded as on the legacy path.
type problemReply struct {
	Type      string        `json:"type"`
	Title     string        `json:"title"`
	Status    int           `json:"status"`
	Detail    string        `json:"detail"`
	Code      string        `json:"code"`
	Reason    string        `json:"reason,omitempty"`
	RequestID string        `json:"request_id"`
	Errors    []problemJSON `json:"errors,omitempty"`
}

// problemContentType is RFC 9457's media type (JSON is UTF-8 by
// definition; it takes no charset).
const problemContentType = "application/problem+json"

// titles are RFC 9110's reason phrases where Go's net/http still has the
// older ones.
var titles = map[int]string{
	http.StatusRequestEntityTooLarge: "Content Too Large",
	http.StatusUnprocessableEntity:   "Unprocessable Content",
}

func title(status int) string {
	if t, ok := titles[status]; ok {
		return t
	}
	return http.StatusText(status)
}

// writeProblem answers a problem of status and code.
func writeProblem(w http.ResponseWriter, r *http.Request, status int, code, detail string, errs []problemJSON) {
	sendProblem(w, r, problemReply{Status: status, Detail: detail, Code: code, Errors: errs})
}

// sendProblem answers p, filling its type, title and request_id. No 4xx
// body grows past maxErrorBody (contract §7), whatever was sent: one that
// would is a 500.
func sendProblem(w http.ResponseWriter, r *http.Request, p problemReply) {
	p.Type, p.Title, p.RequestID = "about:blank", title(p.Status), info(r).id
	status := p.Status
	data, err := json.Marshal(p)
	if err != nil || status < 500 && len(data) > maxErrorBody {
		p = problemReply{Type: "about:blank", Title: title(http.StatusInternalServerError), Status: http.StatusInternalServerError,
			Detail: msgInternal, Code: "internal_error", RequestID: info(r).id}
		data, _ = json.Marshal(p)
		status = http.StatusInternalServerError
	}
	w.Header().Set("Content-Type", problemContentType)
	w.WriteHeader(status)
	_, _ = w.Write(append(data, '\n'))
}

// authorizationToken reads "Bearer <token>" from Authorization (RFC 6750
// §2.1; the scheme is case-insensitive), the only place /v1 reads a
// token from. why is "missing" when no Bearer credentials came (no header,
// or another scheme: RFC 6750 §3.1, the challenge then has no error) and
// "malformed" when they cannot be read.
func authorizationToken(r *http.Request) (string, string) {
	values := r.Header.Values("Authorization")
	if len(values) == 0 {
		return "", "missing"
	}
	scheme, tok, _ := strings.Cut(strings.TrimSpace(values[0]), " ")
	if !strings.EqualFold(scheme, "bearer") {
		return "", "missing"
	}
	tok = strings.TrimSpace(tok)
	if len(values) > 1 || tok == "" || strings.ContainsAny(tok, " \t") {
		return "", "malformed"
	}
	return tok, ""
}

// The challenges of a refused /v1 request (contract §8).
// realm names the service in every WWW-Authenticate challenge.
const realm = "disbursementd"

const (
	challengeMissing = `Bearer realm="` + realm + `"`
	challengeInvalid = challengeMissing + `, error="invalid_token"`
)

// v1ReportError answers a failed POST /v1/reports, counted in the
// metrics as the legacy path counts refused reports.
func (s *Server) v1ReportError(w http.ResponseWriter, r *http.Request, err error) {
	a := s.v1Problem(w, r, err)
	s.countRefused(a.status, a.de, a.label)
}

// v1Error answers any other failed /v1 request (but the token's).
func (s *Server) v1Error(w http.ResponseWriter, r *http.Request, err error) { s.v1Problem(w, r, err) }

// v1Problem writes err's answer (answerOf) as a problem.
func (s *Server) v1Problem(w http.ResponseWriter, r *http.Request, err error) errorAnswer {
	a := s.answerOf(r, err, onV1)
	a.note(r, err)
	a.headers(w)
	sendProblem(w, r, problemReply{Status: a.status, Detail: a.message, Code: a.code, Reason: a.reason, Errors: a.problems})
	return a
}

// countRefused counts a report that was not stored: by its answer's
// code, and as a failed dependency when it is a 5xx that turned no report
// away for load or shutdown.
func (s *Server) countRefused(status int, de *domain.Error, reason string) {
	if status >= 500 && de.Code != codeOverloaded && de.Code != codeShuttingDown {
		s.metrics.StoreError()
	}
	s.metrics.ReportRefused(reason)
}

package httpapi

import (
	"context"
	"net/http"
	"strconv"
	"strings"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

type problemJSON struct {
	Field   string `json:"field"`
	Code    string `json:"code"`
	Message string `json:"message"`
}

type reportReply struct {
	Status  string        `json:"status"`
	Message string        `json:"message"`
	ID      int64         `json:"id,omitempty"`
	File    string        `json:"file,omitempty"`
	Code    string        `json:"code,omitempty"`
	Detail  string        `json:"detail,omitempty"`
	Errors  []problemJSON `json:"errors,omitempty"`
}

// The codes of the 503s that turn a report away before it starts.
const (
	codeOverloaded   = "overloaded"    // http.max_in_flight reports running, or the bounds of bodies being received full
	codeShuttingDown = "shutting_down" // Stop was called
)

// bearerToken reads "bearer <token>" from Authentication-Type only.
func bearerToken(r *http.Request) (string, string) {
	h := r.Header.Get("Authentication-Type")
	if h == "" {
		if r.Header.Get("Authorization") != "" {
			return "", "wrong_header"
		}
		return "", "missing"
	}
	scheme, tok, ok := strings.Cut(strings.TrimSpace(h), " ")
	tok = strings.TrimSpace(tok)
	if !ok || !strings.EqualFold(scheme, "bearer") || tok == "" || strings.ContainsAny(tok, " \t") {
		return "", "malformed"
	}
	return tok, ""
}

// reportError writes a failed report answer (answerOf): the body's
// status is "401" for token failures and "400" for everything else; the
// HTTP status says whether a retry can help.
func (s *Server) reportError(w http.ResponseWriter, r *http.Request, err error) {
	a := s.answerOf(r, err, onReport)
	a.note(r, err)
	s.countRefused(a.status, a.de, a.label)
	a.headers(w)
	reply := reportReply{Status: "400", Message: a.message, Code: a.code, Detail: a.detail, Errors: a.problems}
	if a.status == http.StatusUnauthorized {
		reply.Status = "401"
	}
	writeJSON(w, a.status, reply)
}

// problems lists at most max problems, then one entry saying how many
// more there were (contract §7: no answer grows with what was sent).
func problems(ps []domain.Problem, max int) []problemJSON {
	if len(ps) == 0 {
		return nil
	}
	out := make([]problemJSON, 0, min(len(ps), max)+1)
	for _, p := range ps[:min(len(ps), max)] {
		out = append(out, problemJSON{Field: domain.Clip(p.Field), Code: p.Code, Message: p.Message})
	}
	if more := len(ps) - max; more > 0 {
		out = append(out, problemJSON{Field: "", Code: "more_problems",
			Message: "y " + strconv.Itoa(more) + " problemas más; corrija los anteriores y reintente"})
	}
	return out
}

// handleReport is POST /api/partner_api.php: the report pipeline
// (runReport) with the token in Authentication-Type and the legacy
// answers.
func (s *Server) handleReport(w http.ResponseWriter, r *http.Request) {
	s.runReport(w, r, reportRoute{token: bearerToken, fail: s.reportError, keyed: true},
		func(ctx context.Context, w http.ResponseWriter, p ports.Principal, members []domain.RawField, body []byte) error {
			receipt, err := s.Reports.Submit(ctx, submission(r, p, members, body, domain.MapOptions{}))
			if err != nil {
				return err
			}
			s.noteReceipt(w, r, receipt)
			writeRaw(w, http.StatusOK, successBody(receipt))
			return nil
		})
}

// successBody is the 200 answer, written without reflection (every report
// pays it): {"status":"200","message":"Datos ingresados exitosamente!","id":N,"file":"…"}.
// The file name is domain.FileName's output: ASCII letters, digits, '-',
// '_' and '.', which need no escaping.
func successBody(r domain.Receipt) []byte {
	b := make([]byte, 0, 160)
	b = append(b, `{"status":"200","message":"`+domain.MsgSuccess+`","id":`...)
	b = strconv.AppendInt(b, r.ID, 10)
	if r.FileName != "" {
		b = append(b, `,"file":"`...)
		b = append(b, r.FileName...)
		b = append(b, '"')
	}
	return append(b, "}\n"...)
}

func tooLarge(limit int64) error {
	return domain.NewError(domain.ErrTooLarge, "body_too_large",
		"El cuerpo supera el máximo de "+formatBytes(limit))
}

func formatBytes(n int64) string {
	if n%(1<<20) == 0 {
		return itoa(n>>20) + " MiB"
	}
	return itoa(n) + " bytes"
}

package domain

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// ReportStatus is a stored report's state (contract §11): received when
// it is stored, then accepted or rejected, once, by the lender.
type ReportStatus string

// The states of a report.
const (
	StatusReceived ReportStatus = "received"
	StatusAccepted ReportStatus = "accepted"
	StatusRejected ReportStatus = "rejected"
)

// Statuses lists every state, in the order a report passes them.
var Statuses = []ReportStatus{StatusReceived, StatusAccepted, StatusRejected}

// ParseStatus reads a state's word; false for anything else.
func ParseStatus(s string) (ReportStatus, bool) {
	st := ReportStatus(s)
	return st, slices.Contains(Statuses, st)
}

// Decided reports whether st is a decision's state (accepted or rejected).
func (st ReportStatus) Decided() bool { return st == StatusAccepted || st == StatusRejected }

// Decision is the lender's one decision on a report: accepted, or
// rejected with a reason code from the configured list and a reason for
// the partner. By and At say who made it and when; they are not part of
// what makes two decisions the same (Same).
type Decision struct {
	Status     ReportStatus // StatusAccepted or StatusRejected
	ReasonCode string       // rejected only
	Reason     string       // rejected only: NFC, 1 to MaxReasonChars characters
	By         string       // "backoffice:NAME" or "cli:USER" (DecidedByBackoffice, DecidedByCLI)
	At         time.Time    // UTC, to the millisecond, as receipts show times
}

// Same reports whether d and e decide the same thing: the same status,
// reason code and reason. The same decision made again is no change
// (contract §11: idempotent); a different one is a conflict.
func (d Decision) Same(e Decision) bool {
	return d.Status == e.Status && d.ReasonCode == e.ReasonCode && d.Reason == e.Reason
}

// DecidedByBackoffice and DecidedByCLI name who made a decision, as it is
// recorded and shown to operators.
func DecidedByBackoffice(client string) string { return "backoffice:" + client }

// DecidedByCLI names a decision made with the command line by an
// operating-system user.
func DecidedByCLI(user string) string { return "cli:" + user }

// MsgDecisionConflict is the message of a decision that contradicts the
// one already made.
const MsgDecisionConflict = "El reporte ya tiene otra decisión; una decisión es definitiva"

// DecisionConflict is the error of a decision that differs from the one
// the report already has (409 decision_conflict); the report keeps it.
func DecisionConflict(id int64, has ReportStatus) *Error {
	return &Error{Kind: ErrConflict, Code: "decision_conflict",
		Message: MsgDecisionConflict + " (reporte " + strconv.FormatInt(id, 10) + ": " + string(has) + ")"}
}

// reasonCodeForm is what a configured reason code may look like: a
// lower-case word that a partner's program can switch on.
var reasonCodeForm = regexp.MustCompile(`^[a-z][a-z0-9_]{0,` + strconv.Itoa(MaxReasonCodeLen-1) + `}$`)

// DefaultReasonCodes is contract §11's default list of reason codes.
var DefaultReasonCodes = []string{"monto_no_coincide", "credito_no_encontrado", "documento_ilegible",
	"documento_faltante", "datos_cliente", "duplicado", "otro"}

// DecisionRules are the rules a decision meets: the configured reason
// codes (decisions.reason_codes) and the reason's bounds.
type DecisionRules struct{ codes []string }

// NewDecisionRules returns the rules for codes: at least one, each a
// lower-case word of 1 to MaxReasonCodeLen of a-z, 0-9 and _ starting
// with a letter, none twice.
func NewDecisionRules(codes []string) (DecisionRules, error) {
	if len(codes) == 0 {
		return DecisionRules{}, &Error{Kind: ErrInvalidInput, Code: "invalid_reason_codes", Message: "no reason codes: " + ReasonCodesBound.En}
	}
	for i, c := range codes {
		if !reasonCodeForm.MatchString(c) {
			return DecisionRules{}, &Error{Kind: ErrInvalidInput, Code: "invalid_reason_codes", Message: "reason code " + strconv.Quote(Clip(c)) + ": " + ReasonCodesBound.En}
		}
		if slices.Contains(codes[:i], c) {
			return DecisionRules{}, &Error{Kind: ErrInvalidInput, Code: "invalid_reason_codes", Message: "reason code " + strconv.Quote(c) + " is listed twice"}
		}
	}
	return DecisionRules{codes: slices.Clone(codes)}, nil
}

// Codes returns the configured reason codes, in their configured order.
func (r DecisionRules) Codes() []string { return slices.Clone(r.codes) }

// DecisionRequest is a decision as a back office asks for it: the
// decision's word and, for a rejection, the reason code and reason, as
// typed (the reason is put in NFC here).
type DecisionRequest struct {
	Decision, ReasonCode, Reason string
}

// Check returns the decision req asks for, made by by at at, or an error
// of kind ErrInvalidInput (code invalid_decision) whose problems name each
// member that is wrong: decision (not accepted or rejected), reason_code
// (missing, not configured, or given with accepted) and reason (missing,
// over MaxReasonChars characters after NFC, a control character, or given
// with accepted).
func (r DecisionRules) Check(req DecisionRequest, by string, at time.Time) (Decision, error) {
	var problems []Problem
	add := func(field, code, msg string) {
		problems = append(problems, Problem{Field: field, Code: code, Message: msg})
	}
	st, ok := ParseStatus(req.Decision)
	if !ok || !st.Decided() {
		add("decision", "invalid_value", "debe ser accepted o rejected")
	}
	reason := NFC(req.Reason)
	switch {
	case st == StatusAccepted:
		if req.ReasonCode != "" {
			add("reason_code", "not_allowed", "solo va con rejected")
		}
		if req.Reason != "" {
			add("reason", "not_allowed", "solo va con rejected")
		}
	case st == StatusRejected:
		switch {
		case req.ReasonCode == "":
			add("reason_code", "required", "es obligatorio con rejected: "+strings.Join(r.codes, ", "))
		case !slices.Contains(r.codes, req.ReasonCode):
			add("reason_code", "invalid_value", "no es un código configurado: "+strings.Join(r.codes, ", "))
		}
		if p, bad := checkReason(reason); bad {
			add("reason", p.Code, p.Message)
		}
	}
	if len(problems) > 0 {
		msg := "Decisión inválida: " + problems[0].Field + ": " + problems[0].Message
		return Decision{}, &Error{Kind: ErrInvalidInput, Code: "invalid_decision", Message: msg, Problems: problems}
	}
	d := Decision{Status: st, By: by, At: at.UTC().Truncate(time.Millisecond)}
	if st == StatusRejected {
		d.ReasonCode, d.Reason = req.ReasonCode, reason
	}
	return d, nil
}

// checkReason says what is wrong with a reason already in NFC, if
// anything: empty, over MaxReasonChars characters, invalid UTF-8, a
// control character other than a line break, or an invisible format
// character (invisibleFormat): a reason a partner reads must say what it
// shows.
func checkReason(reason string) (Problem, bool) {
	switch n := utf8.RuneCountInString(reason); {
	case strings.TrimSpace(reason) == "":
		return Problem{Code: "required", Message: "es obligatorio con rejected: " + ReasonBound.Es}, true
	case n > MaxReasonChars:
		return Problem{Code: "too_long", Message: "tiene " + strconv.Itoa(n) + " caracteres: " + ReasonBound.Es}, true
	case !utf8.ValidString(reason):
		return Problem{Code: "invalid_value", Message: "no es UTF-8 válido"}, true
	}
	for _, c := range reason {
		if c != '\n' && unicode.IsControl(c) {
			return Problem{Code: "invalid_value", Message: "tiene un carácter de control (solo se permite el salto de línea)"}, true
		}
		if p, bad := invisibleFormat(c); bad {
			return p, true
		}
	}
	return Problem{}, false
}

// invisibleFormat refuses a format character (Unicode category Cf): a
// zero-width space that makes an empty-looking reason, a direction
// override that shows "gnp.exe" as "exe.png" (CVE-2021-42574's "Trojan
// Source"), a byte order mark; and the other characters drawn as nothing
// or as a blank that is no space (Unicode's Other_Default_Ignorable_Code_Point:
// the Hangul fillers U+3164, U+115F, U+1160, the combining grapheme
// joiner U+034F; the braille blank U+2800). Text partners read is
// written without them; the message names the code point.
func invisibleFormat(c rune) (Problem, bool) {
	if !unicode.Is(unicode.Cf, c) && !unicode.Is(unicode.Other_Default_Ignorable_Code_Point, c) && c != '\u2800' {
		return Problem{}, false
	}
	return Problem{Code: "invalid_value", Message: fmt.Sprintf("tiene un carácter invisible de formato (U+%04X), que se muestra distinto de lo que dice", c)}, true
}

package domain

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// Error kinds. Adapters and the service wrap these; the HTTP adapter maps
// them to status codes with errors.Is in one table.
var (
	// ErrInvalidInput: the partner sent something wrong; retrying the same
	// request cannot help.
	ErrInvalidInput = errors.New("invalid input")
	// ErrInvalidToken: the access token is missing, malformed, expired or
	// not signed by a trusted key.
	ErrInvalidToken = errors.New("invalid token")
	// ErrInvalidClient: the credentials were rejected.
	ErrInvalidClient = errors.New("invalid client")
	// ErrThrottled: too many attempts; retry later.
	ErrThrottled = errors.New("throttled")
	// ErrUnavailable: a dependency (login upstream, database, disk) failed;
	// nothing was kept and retrying may help.
	ErrUnavailable = errors.New("temporarily unavailable")
	// ErrTooLarge: the body or the file is over its limit.
	ErrTooLarge = errors.New("too large")
	// ErrUnsupportedMediaType: the body is not JSON.
	ErrUnsupportedMediaType = errors.New("unsupported media type")
	// ErrKeyReused: an Idempotency-Key was reused with another body.
	ErrKeyReused = errors.New("idempotency key reused")
	// ErrInProgress: an identical request is still being processed.
	ErrInProgress = errors.New("request in progress")
	// ErrNotFound: the thing looked up does not exist.
	ErrNotFound = errors.New("not found")
	// ErrConflict: the thing to create exists already.
	ErrConflict = errors.New("conflict")
	// ErrGone: what the request names existed and was deleted for good (a
	// report the retention purge deleted, sent again under its key);
	// retrying the same request cannot help.
	ErrGone = errors.New("gone")
	// ErrOutcomeUnknown: a commit failed in a way that does not tell
	// whether it was applied (the database went away during it). Whatever
	// the commit would name (a file) must be kept, not undone.
	ErrOutcomeUnknown = errors.New("outcome unknown")
)

// Messages the partner sees, in Spanish like the original specification.
const (
	MsgSuccess       = "Datos ingresados exitosamente!"
	MsgInvalidToken  = "Token inválido"
	MsgStoreFailed   = "No se pudo copiar los datos a tabla temporal"
	MsgFileFailed    = "No se pudo guardar el archivo adjunto"
	MsgInvalidReport = "Datos del reporte inválidos"
	MsgReportPurged  = "El reporte enviado antes con esta clave fue eliminado por la política de retención; no se guarda de nuevo con la misma clave: envíelo con una Idempotency-Key nueva si debe guardarse otra vez"
)

// Problem is one thing wrong with one field of a report.
type Problem struct {
	Field   string // the partner's field name (or the key as sent when unknown)
	Code    string // machine code, e.g. "required", "too_long"
	Message string // Spanish text for a person
}

// Error is an error of a known kind with a safe message for the client and
// the problems found, if any. Cause is for the log only. The kind that
// decides an answer is the outermost Error's (KindOf); errors.Is and
// errors.As are standard and also see what the cause wraps.
type Error struct {
	Kind     error
	Code     string
	Message  string
	Detail   string
	Problems []Problem
	// RetryAfter is how long the client should wait before trying again
	// (throttling, overload); 0 when it does not apply.
	RetryAfter time.Duration
	Cause      error
}

func (e *Error) Error() string {
	var b strings.Builder
	b.WriteString(e.Message)
	if e.Detail != "" {
		b.WriteString(" (" + e.Detail + ")")
	}
	for _, p := range e.Problems {
		b.WriteString("; " + p.Field + ": " + p.Message)
	}
	if e.Cause != nil {
		b.WriteString(": " + e.Cause.Error())
	}
	return b.String()
}

// Is reports whether target is e's kind.
func (e *Error) Is(target error) bool { return target == e.Kind }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// KindOf returns the kind of err: the Kind of the outermost *Error in its
// chain, or nil when it holds none (an internal error). Answers and
// retries are decided by it alone, so a 503 whose cause wraps a store's
// ErrNotFound stays a 503.
func KindOf(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return e.Kind
	}
	return nil
}

// IsKind reports whether err's kind (KindOf) is kind.
func IsKind(err, kind error) bool {
	k := KindOf(err)
	return k != nil && errors.Is(k, kind)
}

// NewError builds an *Error of the given kind.
func NewError(kind error, code, message string) *Error {
	return &Error{Kind: kind, Code: code, Message: message}
}

// WithCause returns a copy of e that carries cause for the log.
func (e *Error) WithCause(cause error) *Error {
	c := *e
	c.Cause = cause
	return &c
}

// InvalidReport is the error for a report with problems.
func InvalidReport(problems []Problem) *Error {
	msg := MsgInvalidReport
	if len(problems) > 0 {
		msg = MsgInvalidReport + ": " + problems[0].Field + ": " + problems[0].Message
		if len(problems) > 1 {
			msg += " (y " + strconv.Itoa(len(problems)-1) + " más)"
		}
	}
	return &Error{Kind: ErrInvalidInput, Code: "invalid_report", Message: msg, Problems: problems}
}

// Clip cuts s to MaxQuoted characters, marking the cut with "…", so that
// no answer grows with what a client sent.
func Clip(s string) string {
	n := 0
	for i := range s {
		if n == MaxQuoted {
			return s[:i] + "…"
		}
		n++
	}
	return s
}

// InvalidToken is a refused access token; reason, one word (missing,
// malformed, expired, user_inactive, …), is its Detail: the word the
// 401's answer and the log line carry.
func InvalidToken(reason string) *Error {
	return &Error{Kind: ErrInvalidToken, Code: "invalid_token", Message: MsgInvalidToken, Detail: reason}
}

// InvalidClient is a login's credentials refused. It names no code: each
// surface answers the kind with its own word.
func InvalidClient() *Error {
	return &Error{Kind: ErrInvalidClient, Message: "credentials refused"}
}

// Throttled is a spent login budget: which budget (address, user,
// upstream) and when to come back.
func Throttled(which string, retryAfter time.Duration) *Error {
	return &Error{Kind: ErrThrottled, Message: "too many attempts", Detail: which, RetryAfter: retryAfter}
}

// Unavailable is a dependency that failed (the login's store, throttle
// or upstream, a password comparison slot): what failed, for the log;
// the cause goes in with WithCause.
func Unavailable(what string) *Error {
	return &Error{Kind: ErrUnavailable, Message: what}
}

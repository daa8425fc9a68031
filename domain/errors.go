package domain

import (
	"errors"
	"strconv"
	"strings"
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
)

// Messages the partner sees, in Spanish like the original specification.
const (
	MsgSuccess       = "Datos ingresados exitosamente!"
	MsgInvalidToken  = "Token inválido"
	MsgStoreFailed   = "No se pudo copiar los datos a tabla temporal"
	MsgFileFailed    = "No se pudo guardar el archivo adjunto"
	MsgInvalidReport = "Datos del reporte inválidos"
)

// Problem is one thing wrong with one field of a report.
type Problem struct {
	Field   string // the partner's field name (or the key as sent when unknown)
	Code    string // machine code, e.g. "required", "too_long"
	Message string // Spanish text for a person
}

// Error is an error of a known kind with a safe message for the client and
// the problems found, if any. Cause is for the log only.
type Error struct {
	Kind     error
	Code     string
	Message  string
	Detail   string
	Problems []Problem
	Cause    error
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

// Unwrap lets errors.Is match both the kind and the cause.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
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

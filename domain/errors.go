package domain

import (
	"errors"
	"reflect"
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
)

// Problem is one thing wrong with one field of a report.
type Problem struct {
	Field   string // the partner's field name (or the key as sent when unknown)
	Code    string // machine code, e.g. "required", "too_long"
	Message string // Spanish text for a person
}

// Error is an error of a known kind with a safe message for the client and
// the problems found, if any. Cause is for the log only. errors.Is(err, K)
// answers for Kind; the cause chain is searched too, but the kind of an
// *Error used as a cause is hidden (see Unwrap), so a wrapped refusal of
// one kind never passes for another.
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

// Unwrap returns the cause, for errors.Is and errors.As on what went
// wrong underneath (a driver error, fs.ErrNotExist), with the kind of
// every *Error in it hidden: the first *Error in a chain is the only one
// whose kind classifies it.
func (e *Error) Unwrap() error {
	if e.Cause == nil {
		return nil
	}
	return hiddenKinds{e.Cause}
}

// hiddenKinds is a cause seen through Unwrap: it matches what its error
// matches, except that an *Error's kind (and the *Error itself, for
// errors.As) stays hidden while its own cause is still searched, and so
// do the kind sentinels themselves (a store's "%w" of ErrNotFound under a
// 503 must not read as a 404).
type hiddenKinds struct{ err error }

// isKind reports whether err is one of the error kinds above.
func isKind(err error) bool {
	switch err {
	case ErrInvalidInput, ErrInvalidToken, ErrInvalidClient, ErrThrottled, ErrUnavailable, ErrTooLarge,
		ErrUnsupportedMediaType, ErrKeyReused, ErrInProgress, ErrNotFound, ErrConflict, ErrOutcomeUnknown:
		return true
	}
	return false
}

func (h hiddenKinds) Error() string { return h.err.Error() }

func (h hiddenKinds) Unwrap() []error {
	var next []error
	switch x := h.err.(type) {
	case *Error:
		if x.Cause != nil {
			next = []error{x.Cause}
		}
	case interface{ Unwrap() []error }:
		next = x.Unwrap()
	case interface{ Unwrap() error }:
		if n := x.Unwrap(); n != nil {
			next = []error{n}
		}
	}
	for i, n := range next {
		next[i] = hiddenKinds{n}
	}
	return next
}

func (h hiddenKinds) Is(target error) bool {
	if _, ok := h.err.(*Error); ok || isKind(h.err) {
		return false
	}
	if t := reflect.TypeOf(h.err); t != nil && t.Comparable() && reflect.TypeOf(target) == t && h.err == target {
		return true
	}
	x, ok := h.err.(interface{ Is(error) bool })
	return ok && x.Is(target)
}

func (h hiddenKinds) As(target any) bool {
	if _, ok := h.err.(*Error); ok {
		return false
	}
	v := reflect.ValueOf(target)
	if v.Kind() != reflect.Pointer || v.IsNil() {
		return false
	}
	if t := v.Type().Elem(); reflect.TypeOf(h.err).AssignableTo(t) {
		v.Elem().Set(reflect.ValueOf(h.err))
		return true
	}
	x, ok := h.err.(interface{ As(any) bool })
	return ok && x.As(target)
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

// MaxQuoted is the most characters of something a client sent (a key, a
// value) that a message quotes.
const MaxQuoted = 64

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

package httpapi

import (
	"encoding/json"
	"errors"
	"io"
	"mime"
	"net/http"
	"slices"

	"github.com/lender/disbursementd/domain"
)

// smallBodyMax bounds the JSON body of a request that is not a report (a
// webhook endpoint, a decision): their members are bounded far below it
// (a URL of 2,048 bytes, a reason of 500 characters).
const smallBodyMax = 16 << 10

// smallMembersMax bounds the members of such a body.
const smallMembersMax = 32

// smallBody is a small JSON object, read by readSmall: its members by
// name, and the problems found in them so far, each naming its member.
type smallBody struct {
	raw      []byte
	members  map[string]domain.RawValue
	problems []domain.Problem
}

// readSmall reads a small JSON body: Content-Type application/json (415
// otherwise), at most smallBodyMax bytes (413), at the minimum body rate
// as a report's (408 body_too_slow: a handler reads it before it takes a
// place a trickle would hold), one object as DecodeObject reads a report
// (400 invalid_json: no BOM, valid UTF-8, nothing after it). A member not
// in known, or one sent twice, is a problem naming it (the handler's
// 422), never ignored. While it arrives the body holds a place of
// caller's among the small bodies (503 overloaded when they are full).
func (s *Server) readSmall(w http.ResponseWriter, r *http.Request, caller string, known ...string) (*smallBody, error) {
	if mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err != nil || mt != "application/json" {
		return nil, domain.NewError(domain.ErrUnsupportedMediaType, "unsupported_media_type", "Content-Type debe ser application/json")
	}
	if r.ContentLength > smallBodyMax {
		return nil, tooLarge(smallBodyMax)
	}
	if !s.smalls.enter(caller) {
		return nil, s.overloaded("Servicio ocupado: demasiados cuerpos llegando; reintente en un momento")
	}
	defer s.smalls.leave(caller)
	guard := newRateGuard(w, r.Body, s.Limits.MinBodyRate, s.Limits.BodyRateGrace)
	defer guard.stop()
	raw, err := io.ReadAll(http.MaxBytesReader(nil, io.NopCloser(guard), smallBodyMax))
	var tooBig *http.MaxBytesError
	switch {
	case errors.As(err, &tooBig):
		return nil, tooLarge(smallBodyMax)
	case errors.Is(err, errBodyTooSlow):
		s.metrics.BodyTooSlow()
		w.Header().Set("Connection", "close") // the connection's read side is spent
		return nil, s.bodyTooSlow()
	case err != nil:
		return nil, badBody("No se pudo leer el cuerpo")
	}
	fields, err := DecodeObject(raw, smallMembersMax)
	if err != nil {
		return nil, err
	}
	b := &smallBody{raw: raw, members: map[string]domain.RawValue{}}
	for _, f := range fields {
		switch _, twice := b.members[f.Key]; {
		case !slices.Contains(known, f.Key):
			b.add(domain.Clip(f.Key), domain.CodeUnknownField, "miembro desconocido; los miembros son "+joinNames(known))
		case twice:
			b.add(f.Key, domain.CodeDuplicateField, "llegó más de una vez")
		default:
			b.members[f.Key] = f.Value
		}
	}
	return b, nil
}

func (b *smallBody) add(field, code, msg string) {
	b.problems = append(b.problems, domain.Problem{Field: field, Code: code, Message: msg})
}

// text returns member name's string; "" when it is absent or null.
// Anything else is a problem naming it.
func (b *smallBody) text(name string) string {
	v, ok := b.members[name]
	switch {
	case !ok || v.Kind == domain.RawNull:
		return ""
	case v.Kind != domain.RawString:
		b.add(name, domain.CodeInvalidType, "debe ser texto")
		return ""
	}
	return v.Text
}

// texts returns member name's list of strings; nil when it is absent or
// null. Anything else is a problem naming it.
func (b *smallBody) texts(name string) []string {
	v, ok := b.members[name]
	if !ok || v.Kind == domain.RawNull {
		return nil
	}
	var wrapped map[string]json.RawMessage
	var list []string
	if v.Kind == domain.RawArray && json.Unmarshal(b.raw, &wrapped) == nil && json.Unmarshal(wrapped[name], &list) == nil {
		return list
	}
	b.add(name, domain.CodeInvalidType, "debe ser una lista de textos")
	return nil
}

// err is the body's problems as one error of code (the handler's 422
// naming each member), or nil when it has none.
func (b *smallBody) err(code, what string) error {
	if len(b.problems) == 0 {
		return nil
	}
	p := b.problems[0]
	return &domain.Error{Kind: domain.ErrInvalidInput, Code: code, Message: what + " inválido: " + p.Field + ": " + p.Message, Problems: b.problems}
}

// joinNames lists names for a message: "a, b o c".
func joinNames(names []string) string { return queryRules{known: names}.names() }

// Package jsonscan is the HTTP adapter's strict JSON reader for a report
// body (and the token endpoint's form in JSON): an object of simple
// values and one level of objects, its members in arrival order with
// duplicates and numbers as written, long strings as views of the body,
// short ones copied into shared blocks.
// It is hand-written for speed (BenchmarkObject beside it; the plain
// reader, encoding/json, is its fuzz oracle) and internal to httpapi,
// which turns its errors into answers.
package jsonscan

import (
	"bytes"
	"errors"
	"fmt"
	"sync"
	"unicode/utf8"

	"github.com/lender/disbursementd/domain"
)

// scanner is a strict RFC 8259 reader for the report body: an object of
// simple values and one level of objects (the FileDto). It keeps members in
// arrival order with duplicates and numbers as written, and hands out long
// unescaped strings (the base64 file) as views of the body instead of
// copies, so a 27 MB body is not held three times over. The body must not
// change while its members are in use.
type scanner struct {
	b []byte
	i int
	// names maps the names a report usually uses to one shared string,
	// so that each key of a typical report costs no allocation.
	names map[string]string
	// members counts the object members read so far, at every level;
	// past maxMembers the scan stops (contract §7: decided while
	// scanning, before anything is kept per member).
	members, maxMembers int
	// arena is the block short strings are copied into (keep).
	arena []byte
	// top, when not nil, is where the top level's members go (ObjectInto).
	top []domain.RawField
}

// ErrTooManyMembers stops a scan that passed its member bound.
var ErrTooManyMembers = errors.New("too many members")

var errDepth = errors.New("JSON anidado demasiado profundo: el reporte es un objeto de valores simples y un FileDto")

// refusal is a body refused as a whole, said as the partner reads it.
type refusal string

func (r refusal) Error() string { return string(r) }

// Object reads body, a JSON object, into its members in arrival order,
// keeping duplicates (the catalogue reports them) and numbers as written.
// It refuses invalid UTF-8, a byte order mark, anything but an object at
// the top, nesting deeper than a report needs and anything after the
// object, with an error whose text says why in the partner's words
// (Spanish); and more than maxMembers members in all (nested ones count)
// with ErrTooManyMembers, decided while scanning. The members may refer
// to body's bytes: body must not change while they are used.
func Object(body []byte, maxMembers int) ([]domain.RawField, error) {
	return ObjectInto(nil, body, maxMembers)
}

// ObjectInto is Object with the top level's members appended to dst[:0]
// (a caller's reused slice; nil: a new one).
func ObjectInto(dst []domain.RawField, body []byte, maxMembers int) ([]domain.RawField, error) {
	if bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")) {
		return nil, refusal("El cuerpo empieza con una marca BOM; envíe JSON UTF-8 sin BOM")
	}
	if !utf8.Valid(body) {
		return nil, refusal("El cuerpo no es UTF-8 válido")
	}
	s := &scanner{b: body, maxMembers: maxMembers, names: knownNames(), top: dst[:0]}
	s.ws()
	if s.i >= len(body) || body[s.i] != '{' {
		return nil, refusal("El cuerpo debe ser un objeto JSON")
	}
	members, err := s.object(1)
	switch {
	case errors.Is(err, errDepth), errors.Is(err, ErrTooManyMembers):
		return nil, err
	case err != nil:
		return nil, fmt.Errorf("JSON mal formado: %w", err)
	}
	s.ws()
	if s.i != len(body) {
		return nil, errors.New("JSON mal formado: hay contenido después del objeto")
	}
	return members, nil
}

// maxDepth is the deepest nesting a report needs: report, FileDto, and one
// more level that the catalogue then reports by field.
const maxDepth = 3

// viewThreshold is the string length above which a string without escapes
// is a view of the body rather than a copy.
const viewThreshold = 4096

func (s *scanner) fail(format string, a ...any) error {
	return fmt.Errorf("%s (byte %d)", fmt.Sprintf(format, a...), s.i)
}

func (s *scanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object reads an object whose opening brace is next; depth is its level.
func (s *scanner) object(depth int) ([]domain.RawField, error) {
	if depth > maxDepth {
		return nil, errDepth
	}
	s.i++ // '{'
	var out []domain.RawField
	if depth == 1 {
		out = s.top
		if out == nil {
			out = make([]domain.RawField, 0, 96) // a report's 92 fields, in one allocation
		}
	}
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return out, nil
	}
	for {
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return nil, s.fail("se esperaba el nombre de un campo entre comillas")
		}
		if s.members++; s.members > s.maxMembers {
			return nil, ErrTooManyMembers
		}
		key, err := s.str(false)
		if err != nil {
			return nil, err
		}
		s.ws()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return nil, s.fail("se esperaba ':' tras el nombre %q", domain.Clip(key))
		}
		s.i++
		v, err := s.value(depth)
		if err != nil {
			return nil, err
		}
		out = append(out, domain.RawField{Key: key, Value: v})
		s.ws()
		if s.i >= len(s.b) {
			return nil, s.fail("el cuerpo termina antes de cerrar el objeto")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return out, nil
		default:
			return nil, s.fail("se esperaba ',' o '}'")
		}
	}
}

// value reads any value inside an object of level depth.
func (s *scanner) value(depth int) (domain.RawValue, error) {
	s.ws()
	if s.i >= len(s.b) {
		return domain.RawValue{}, s.fail("falta un valor")
	}
	switch c := s.b[s.i]; {
	case c == '"':
		str, err := s.str(true)
		return domain.RawValue{Kind: domain.RawString, Text: str}, err
	case c == '{':
		members, err := s.object(depth + 1)
		if depth+1 > 2 {
			members = nil // objects inside the FileDto are not read; their kind is enough
		}
		return domain.RawValue{Kind: domain.RawObject, Members: members}, err
	case c == '[':
		return domain.RawValue{Kind: domain.RawArray}, s.array(depth + 1)
	case c == 't':
		return domain.RawValue{Kind: domain.RawBool, Bool: true}, s.literal("true")
	case c == 'f':
		return domain.RawValue{Kind: domain.RawBool}, s.literal("false")
	case c == 'n':
		return domain.RawValue{Kind: domain.RawNull}, s.literal("null")
	case c == '-' || c >= '0' && c <= '9':
		text, err := s.number()
		return domain.RawValue{Kind: domain.RawNumber, Text: text}, err
	}
	return domain.RawValue{}, s.fail("valor JSON no válido")
}

func (s *scanner) array(depth int) error {
	if depth > maxDepth {
		return errDepth
	}
	s.i++ // '['
	s.ws()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return nil
	}
	for {
		if _, err := s.value(depth); err != nil {
			return err
		}
		s.ws()
		if s.i >= len(s.b) {
			return s.fail("el cuerpo termina antes de cerrar la lista")
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return nil
		default:
			return s.fail("se esperaba ',' o ']'")
		}
	}
}

func (s *scanner) literal(word string) error {
	if len(s.b)-s.i < len(word) || string(s.b[s.i:s.i+len(word)]) != word {
		return s.fail("literal no válido")
	}
	s.i += len(word)
	return nil
}

// number reads -?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)? and returns it as
// written.
func (s *scanner) number() (string, error) {
	start := s.i
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	if s.b[s.i] == '-' {
		s.i++
	}
	if s.i < len(s.b) && s.b[s.i] == '0' {
		s.i++
	} else if digits() == 0 {
		return "", s.fail("número no válido")
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return "", s.fail("número no válido")
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return "", s.fail("número no válido")
		}
	}
	return string(s.b[start:s.i]), nil
}

// knownNames are the field names of the catalogue and of the FileDto, as
// written in fields.csv: the keys a report usually has.
var knownNames = sync.OnceValue(func() map[string]string {
	names := map[string]string{}
	for _, f := range domain.DefaultCatalogue().Fields {
		names[f.Partner], names[f.Internal] = f.Partner, f.Internal
	}
	for _, n := range domain.FileDtoMembers {
		names[n] = n
	}
	return names
})

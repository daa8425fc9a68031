package httpapi

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"unicode/utf8"

	"github.com/lender/disbursementd/domain"
)

var errBadJSON = errors.New("bad JSON")

func badBody(msg string) error {
	return &domain.Error{Kind: domain.ErrInvalidInput, Code: "invalid_json", Message: msg}
}

// DecodeObject reads a JSON object into its members in arrival order,
// keeping duplicates (the catalogue reports them) and numbers as written.
// It refuses invalid UTF-8, a byte order mark, anything but an object at
// the top, and anything after the object.
func DecodeObject(body []byte) ([]domain.RawField, error) {
	if bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")) {
		return nil, badBody("El cuerpo empieza con una marca BOM; envíe JSON UTF-8 sin BOM")
	}
	if !utf8.Valid(body) {
		return nil, badBody("El cuerpo no es UTF-8 válido")
	}
	if depth(body) > maxDepth {
		return nil, badBody("JSON anidado demasiado profundo: el reporte es un objeto de valores simples y un FileDto")
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	members, err := decodeMembers(dec, 0)
	if err != nil {
		if errors.Is(err, errBadJSON) {
			return nil, badBody("El cuerpo debe ser un objeto JSON")
		}
		return nil, badBody("JSON mal formado: " + jsonErrText(err))
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, badBody("JSON mal formado: hay contenido después del objeto")
	}
	return members, nil
}

// decodeMembers reads one object; depth 0 is the report, 1 the FileDto.
func decodeMembers(dec *json.Decoder, depth int) ([]domain.RawField, error) {
	t, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := t.(json.Delim); !ok || d != '{' {
		return nil, errBadJSON
	}
	var out []domain.RawField
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, _ := kt.(string)
		v, err := decodeValue(dec, depth)
		if err != nil {
			return nil, err
		}
		out = append(out, domain.RawField{Key: key, Value: v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	return out, nil
}

func decodeValue(dec *json.Decoder, depth int) (domain.RawValue, error) {
	var raw json.RawMessage
	if err := dec.Decode(&raw); err != nil {
		return domain.RawValue{}, err
	}
	if depth > 0 && len(raw) > 0 && raw[0] == '{' {
		// Objects inside the FileDto are not read; their kind is enough.
		return domain.RawValue{Kind: domain.RawObject}, nil
	}
	return rawValue(raw)
}

func rawValue(raw json.RawMessage) (domain.RawValue, error) {
	if len(raw) == 0 {
		return domain.RawValue{}, errBadJSON
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return domain.RawValue{}, err
		}
		return domain.RawValue{Kind: domain.RawString, Text: s}, nil
	case 't', 'f':
		return domain.RawValue{Kind: domain.RawBool, Bool: raw[0] == 't'}, nil
	case 'n':
		return domain.RawValue{Kind: domain.RawNull}, nil
	case '[':
		return domain.RawValue{Kind: domain.RawArray}, nil
	case '{':
		sub := json.NewDecoder(bytes.NewReader(raw))
		sub.UseNumber()
		members, err := decodeMembers(sub, 1)
		if err != nil {
			return domain.RawValue{}, err
		}
		return domain.RawValue{Kind: domain.RawObject, Members: members}, nil
	}
	return domain.RawValue{Kind: domain.RawNumber, Text: string(raw)}, nil
}

func jsonErrText(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (byte %d)", se.Error(), se.Offset)
	}
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return "el cuerpo termina antes de tiempo"
	}
	return err.Error()
}

// maxDepth is the deepest nesting a report needs (report, FileDto) with
// room for one more level that the catalogue then reports by field.
const maxDepth = 3

// depth returns the deepest nesting of objects and arrays in body, outside
// strings, so a hostile body is refused before it is decoded.
func depth(body []byte) int {
	d, deepest, inString, escaped := 0, 0, false, false
	for _, c := range body {
		switch {
		case inString:
			switch {
			case escaped:
				escaped = false
			case c == '\\':
				escaped = true
			case c == '"':
				inString = false
			}
		case c == '"':
			inString = true
		case c == '{' || c == '[':
			d++
			deepest = max(deepest, d)
		case c == '}' || c == ']':
			d--
		}
	}
	return deepest
}

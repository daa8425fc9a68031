package httpapi

import (
	"bytes"
	"errors"
	"sync"
	"unicode/utf8"

	"github.com/lender/disbursementd/domain"
)

func badBody(msg string) error {
	return &domain.Error{Kind: domain.ErrInvalidInput, Code: "invalid_json", Message: msg}
}

// DecodeObject reads a JSON object into its members in arrival order,
// keeping duplicates (the catalogue reports them) and numbers as written.
// It refuses invalid UTF-8, a byte order mark, anything but an object at
// the top, nesting deeper than a report needs, and anything after the
// object, and more than maxMembers members in all (nested ones count). The
// members may refer to body's bytes: body must not change while they are
// used.
func DecodeObject(body []byte, maxMembers int) ([]domain.RawField, error) {
	if bytes.HasPrefix(body, []byte("\xEF\xBB\xBF")) {
		return nil, badBody("El cuerpo empieza con una marca BOM; envíe JSON UTF-8 sin BOM")
	}
	if !utf8.Valid(body) {
		return nil, badBody("El cuerpo no es UTF-8 válido")
	}
	s := &scanner{b: body, maxMembers: maxMembers, names: knownNames()}
	s.ws()
	if s.i >= len(body) || body[s.i] != '{' {
		return nil, badBody("El cuerpo debe ser un objeto JSON")
	}
	members, err := s.object(1)
	if err != nil {
		if errors.Is(err, errDepth) {
			return nil, badBody(errDepth.Error())
		}
		if errors.Is(err, errTooManyMembers) {
			return nil, &domain.Error{Kind: domain.ErrInvalidInput, Code: "too_many_members",
				Message: "El cuerpo tiene más de " + itoa(int64(maxMembers)) + " miembros JSON; un reporte tiene " + itoa(int64(len(domain.DefaultCatalogue().Fields))) + " campos"}
		}
		return nil, badBody("JSON mal formado: " + err.Error())
	}
	s.ws()
	if s.i != len(body) {
		return nil, badBody("JSON mal formado: hay contenido después del objeto")
	}
	return members, nil
}

// knownNames are the field names of the catalogue and of the FileDto, as
// written in fields.csv: the keys a report usually has.
var knownNames = sync.OnceValue(func() map[string]string {
	names := map[string]string{}
	for _, f := range domain.DefaultCatalogue().Fields {
		names[f.Partner], names[f.Internal] = f.Partner, f.Internal
	}
	for _, n := range []string{"Base64String", "FileName", "ContentType", "Extension"} {
		names[n] = n
	}
	return names
})

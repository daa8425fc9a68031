package main

import (
	"encoding/json"
	"strings"

	"github.com/lender/disbursementd/domain"
)

// fileDtoMembers are the FileDto member names as the document spells them.
var fileDtoMembers = []string{"Base64String", "FileName", "ContentType", "Extension"}

// documentedSpelling rewrites an accepted report's keys to the names the
// document gives its properties. The service takes any spelling of a
// field (case, accents, spaces, its internal name) and any case of a
// FileDto member as the same one, and the document says so in words; its
// schema can name only one spelling per property. Values are left as sent.
// internalFile keeps the file under its internal name when it was sent so,
// for a schema that documents that name too (the legacy report's).
func documentedSpelling(body []byte, internalFile bool) ([]byte, error) {
	var members map[string]json.RawMessage
	if err := json.Unmarshal(body, &members); err != nil {
		return nil, err
	}
	cat := domain.DefaultCatalogue()
	out := make(map[string]json.RawMessage, len(members))
	for k, v := range members {
		f, ok := cat.Lookup(k)
		switch {
		case !ok:
			out[k] = v // the schema will say what it makes of it
		case f.Type == domain.TypeFile:
			name := f.Partner
			if internalFile && k == f.Internal {
				name = k // documented under its internal name too
			}
			dto, err := fileDtoSpelling(v)
			if err != nil {
				return nil, err
			}
			out[name] = dto
		default:
			out[f.Partner] = v
		}
	}
	return json.Marshal(out)
}

func fileDtoSpelling(v json.RawMessage) (json.RawMessage, error) {
	var dto map[string]json.RawMessage
	if json.Unmarshal(v, &dto) != nil {
		return v, nil // null or "": absent, as sent
	}
	out := make(map[string]json.RawMessage, len(dto))
	for k, m := range dto {
		for _, name := range fileDtoMembers {
			if strings.EqualFold(k, name) {
				k = name
			}
		}
		out[k] = m
	}
	return json.Marshal(out)
}

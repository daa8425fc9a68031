package httpapi

import (
	"errors"

	"github.com/lender/disbursementd/adapters/httpapi/internal/jsonscan"
	"github.com/lender/disbursementd/domain"
)

func badBody(msg string) error {
	return &domain.Error{Kind: domain.ErrInvalidInput, Code: "invalid_json", Message: msg}
}

// DecodeObject reads a JSON object into its members (jsonscan.Object: in
// arrival order, with duplicates and numbers as written), and answers what
// it refuses as invalid_json, or too_many_members past maxMembers members
// in all. The members may refer to body's bytes: body must not change
// while they are used.
func DecodeObject(body []byte, maxMembers int) ([]domain.RawField, error) {
	return decodeObjectInto(nil, body, maxMembers)
}

// decodeObjectInto is DecodeObject with the members appended to dst[:0].
func decodeObjectInto(dst []domain.RawField, body []byte, maxMembers int) ([]domain.RawField, error) {
	members, err := jsonscan.ObjectInto(dst, body, maxMembers)
	switch {
	case errors.Is(err, jsonscan.ErrTooManyMembers):
		return nil, &domain.Error{Kind: domain.ErrInvalidInput, Code: "too_many_members",
			Message: "El cuerpo tiene más de " + itoa(int64(maxMembers)) + " miembros JSON; un reporte tiene " + itoa(int64(len(domain.DefaultCatalogue().Fields))) + " campos"}
	case err != nil:
		return nil, badBody(err.Error())
	}
	return members, nil
}

package httpapi

import (
	"errors"
	"testing"

	"github.com/lender/disbursementd/domain"
)

// FuzzDecodeObject: any body either decodes to members or is refused with
// a clear ErrInvalidInput; never a panic or another kind of error.
func FuzzDecodeObject(f *testing.F) {
	for _, seed := range []string{
		`{"Numero de Convenio":"CV-1","Plazo (meses)":36,"Documento Soporte":{"Base64String":"JVBERi0="}}`,
		`{"a":1}{"b":2}`, "\xEF\xBB\xBF{}", `{"a":[[[[1]]]]}`, `{"a":"\u0000"}`, `{"a":1e400,"b":-0}`, `[]`, ``,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		ms, err := DecodeObject(body)
		if err != nil {
			var de *domain.Error
			if !errors.As(err, &de) || !errors.Is(err, domain.ErrInvalidInput) || de.Message == "" {
				t.Fatalf("DecodeObject(%q): %v is not a clear ErrInvalidInput", body, err)
			}
			return
		}
		for _, m := range ms {
			if m.Value.Kind == domain.RawNumber && m.Value.Text == "" {
				t.Fatalf("number without its literal in %q", body)
			}
		}
	})
}

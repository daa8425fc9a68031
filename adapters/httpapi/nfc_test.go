package httpapi

import (
	"testing"

	"github.com/lender/disbursementd/domain"
)

// TestNFCValues: a report's text values reach the domain in NFC; the
// FileDto's members and other kinds are left as sent.
func TestNFCValues(t *testing.T) {
	members, err := DecodeObject([]byte(`{"Primer Apellido":"Pe\u0301rez","Ciudad":"Bogota\u0301","Plazo (meses)":36,`+
		`"Documento Soporte":{"FileName":"pagare\u0301.pdf"}}`), 16)
	if err != nil {
		t.Fatal(err)
	}
	nfcValues(members)
	want := map[string]string{"Primer Apellido": "P\u00e9rez", "Ciudad": "Bogot\u00e1", "Plazo (meses)": "36"}
	for _, m := range members {
		if m.Value.Kind == domain.RawObject {
			if got := m.Value.Members[0].Value.Text; got != "pagare\u0301.pdf" {
				t.Errorf("the FileDto's FileName became %q", got)
			}
			continue
		}
		if m.Value.Text != want[m.Key] {
			t.Errorf("%s: %q, want %q", m.Key, m.Value.Text, want[m.Key])
		}
	}
}

package httpapi

import (
	"golang.org/x/text/unicode/norm"

	"github.com/lender/disbursementd/domain"
)

// nfcValues puts the report's text values in Unicode NFC, on both paths,
// before the domain reads them (contract §10): "Pérez" typed with a
// combining accent and "Pérez" precomposed are then one value, stored
// and compared (idempotency, look-ups) as one. Keys need no such step:
// domain.NormalizeKey folds accents either way. The members of an object
// (the FileDto) are not report text and are left as sent.
func nfcValues(members []domain.RawField) {
	for i := range members {
		if v := &members[i].Value; v.Kind == domain.RawString && !ascii(v.Text) {
			v.Text = norm.NFC.String(v.Text)
		}
	}
}

// ascii reports whether s is plain ASCII, which is NFC as it is.
func ascii(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

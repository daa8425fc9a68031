package domain

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// nfcShrink is the most Unicode code points that NFC makes one of: a
// character's canonical decomposition has at most 4 (U+1F82, "ᾂ"), and
// NFC joins nothing else. A text of more than nfcShrink × n code points
// is longer than n in NFC too.
const nfcShrink = 4

// nfcCodeChars bounds the characters of a value of a field that is not
// text (a date, a number, an identifier): none is this long, however it
// is spelled, so a longer one is refused whether or not it was put in NFC.
const nfcCodeChars = 256

// NFC puts s in Unicode NFC: "Pérez" typed with a combining accent and
// "Pérez" precomposed become one text (contract §10). Plain ASCII is NFC
// as it is and comes back without a copy.
//
// NFC can make text up to three times longer in bytes (U+1D160, 4 bytes,
// is 12 in NFC): callers bound what they pass (see nfcField).
func NFC(s string) string {
	if ascii(s) {
		return s
	}
	return norm.NFC.String(s)
}

// nfcField is a report value as the catalogue reads it: a text in NFC,
// anything else as it came. A text longer than the field can hold in any
// form (nfcShrink × its maximum, or nfcCodeChars for a field that is not
// text) is left as it came: parseValue refuses it all the same, and
// normalising it would cost memory that grows with the body (up to three
// times the text), not with the field. So a report's NFC work is bounded
// by its fields' maximums, never by the body's size.
func nfcField(f *Field, v RawValue) RawValue {
	if v.Kind != RawString || ascii(v.Text) {
		return v
	}
	bound := nfcCodeChars
	if f.Type == TypeString || f.Type == TypeEmail {
		bound = f.Max
	}
	// Counted without the white space parseValue trims; a text whose bytes
	// alone pass the bound is not even counted.
	text := strings.TrimSpace(v.Text)
	if len(text) > nfcShrink*bound*utf8.UTFMax || utf8.RuneCountInString(text) > nfcShrink*bound {
		return v
	}
	v.Text = norm.NFC.String(text)
	return v
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

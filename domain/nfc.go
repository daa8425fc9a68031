package domain

import "golang.org/x/text/unicode/norm"

// NFC puts s in Unicode NFC (contract §10: text is stored and compared in
// NFC). Plain ASCII is NFC as it is and is returned without work.
func NFC(s string) string {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return norm.NFC.String(s)
		}
	}
	return s
}

package filecheck

// The URI scan (pdf_uriscan.go) refuses a PDF with a string that a
// browser would run as a script when a link hands it over: a /URI action's (javascript:…),
// which contract §7 counts with scripts. Every string of the file is
// read, wherever it is (a URI may be an indirect object anywhere, and
// its key may be written /U#52I), inside stream data and inflated
// object streams too: compressed bytes do not spell a string that
// decodes to "javascript:" by chance (eleven bytes in order).
//
// A string is decoded as viewers decode it: a literal string's escapes
// (\n, \ddd, a backslash before an end of line or any other byte), a hex
// string's digits (white space and any other byte but ">" between them
// skipped, as pdf.js and MuPDF skip them: "<6A.61 x 76…>" is "jav…" to
// pdf.js), UTF-16BE after its byte order mark. The text is then read as a
// browser's URL parser reads it: C0 controls and spaces before it
// dropped, tabs and ends of line anywhere dropped, letters in any case.
// It counts when it starts with javascript: or vbscript:. The scan keeps
// its state from one window to the next, so a string of any length,
// however padded, is read whole.

// pdfURIString is one candidate string, read from its "(" or "<".
type pdfURIString struct {
	on      bool
	hex     bool
	hexRead bool  // a byte after the "<" was read (a "<" first is a dictionary's "<<")
	depth   int   // parentheses open in a literal string
	esc     uint8 // literal: 0, escBackslash, escCR, or escOctal+n after n octal digits
	oct     byte
	nib     int16   // hex: the high nibble read, or -1
	bom     [3]byte // the string's first bytes while they may be a byte order mark
	nbom    uint8
	utf16   bool
	le      bool  // UTF-16 little-endian: the low byte first
	hi      int16 // UTF-16: the high byte read, or -1
	js, vb  int8  // letters of each scheme matched; -1 when it cannot match
	started bool  // a character past the leading controls and spaces
}

const (
	escBackslash = 1
	escCR        = 2 // a backslash, then CR: an LF after it is part of the line break
	escOctal     = 3 // escOctal+n: n octal digits read
)

var (
	schemeJS = []byte("javascript:")
	schemeVB = []byte("vbscript:")
)

func pdfScriptURI() *Finding {
	return refuse(ActiveContent, "el PDF contiene un enlace javascript: o vbscript:; no se aceptan PDF con scripts")
}

func (s *pdfURIString) begin(hex bool) {
	*s = pdfURIString{on: true, hex: hex, depth: 1, nib: -1, hi: -1}
}

// byte reads one byte of the string; it reports whether the string has
// been read to a script scheme.
func (s *pdfURIString) byte(c byte) bool {
	if s.hex {
		first := !s.hexRead
		s.hexRead = true
		switch {
		case c == '<' && first:
			s.on = false // "<<": a dictionary, no string
		case c == '>':
			if s.nib >= 0 && s.decoded(byte(s.nib<<4)) {
				return true
			}
			s.on = false
		case pdfWhite(c):
		case pdfClass[c]&pdfClassHex != 0:
			if s.nib < 0 {
				s.nib = int16(unhex(c))
				return false
			}
			v := byte(s.nib<<4) | unhex(c)
			s.nib = -1
			return s.decoded(v)
		}
		// Any other byte is skipped, as pdf.js and MuPDF skip it.
		return false
	}
	switch {
	case s.esc == escBackslash:
		s.esc = 0
		switch c {
		case 'n':
			return s.decoded('\n')
		case 'r':
			return s.decoded('\r')
		case 't':
			return s.decoded('\t')
		case 'b':
			return s.decoded('\b')
		case 'f':
			return s.decoded('\f')
		case '\r':
			s.esc = escCR
			return false
		case '\n':
			return false
		}
		if c >= '0' && c <= '7' {
			s.esc, s.oct = escOctal+1, c-'0'
			return false
		}
		return s.decoded(c) // \( \) \\ and a backslash before any other byte
	case s.esc == escCR:
		s.esc = 0
		if c == '\n' {
			return false
		}
	case s.esc > escOctal:
		if c >= '0' && c <= '7' && s.esc < escOctal+3 {
			s.esc, s.oct = s.esc+1, s.oct<<3|(c-'0')
			return false
		}
		s.esc = 0
		if s.decoded(s.oct) {
			return true
		}
		if !s.on {
			return false
		}
	}
	switch c {
	case '\\':
		s.esc = escBackslash
		return false
	case '(':
		s.depth++
	case ')':
		if s.depth--; s.depth == 0 {
			s.on = false
			return false
		}
	}
	return s.decoded(c)
}

// decoded takes the next byte of the string's value. A byte order mark
// first (UTF-16BE's FE FF, UTF-16LE's FF FE, UTF-8's EF BB BF) says how
// the rest is read;
// a byte past ASCII that is not part of one is a character no scheme
// has.
func (s *pdfURIString) decoded(b byte) bool {
	if !s.started && !s.utf16 && (s.nbom > 0 || b >= 0x80) {
		if s.nbom == uint8(len(s.bom)) {
			s.on = false
			return false
		}
		s.bom[s.nbom] = b
		s.nbom++
		switch string(s.bom[:s.nbom]) {
		case "\xFE", "\xFF", "\xEF", "\xEF\xBB":
			return false
		case "\xFE\xFF":
			s.utf16 = true
			return false
		case "\xFF\xFE": // UTF-16LE, which MuPDF also reads
			s.utf16, s.le = true, true
			return false
		case "\xEF\xBB\xBF":
			s.nbom = 0
			return false
		}
		s.on = false
		return false
	}
	if s.utf16 {
		if s.hi < 0 {
			s.hi = int16(b)
			return false
		}
		hi := s.hi
		s.hi = -1
		if s.le {
			hi, b = int16(b), byte(hi)
		}
		if hi != 0 {
			s.on = false
			return false
		}
	}
	return s.char(b)
}

// char takes the next character of the text, as a URL parser reads it.
func (s *pdfURIString) char(c byte) bool {
	if c == '\t' || c == '\n' || c == '\r' || !s.started && c <= ' ' {
		return false
	}
	s.started = true
	if 'A' <= c && c <= 'Z' {
		c += 'a' - 'A'
	}
	match := func(n *int8, scheme []byte) bool {
		if *n < 0 {
			return false
		}
		if scheme[*n] != c {
			*n = -1
			return false
		}
		*n++
		return int(*n) == len(scheme)
	}
	if match(&s.js, schemeJS) || match(&s.vb, schemeVB) {
		return true
	}
	if s.js < 0 && s.vb < 0 {
		s.on = false
	}
	return false
}

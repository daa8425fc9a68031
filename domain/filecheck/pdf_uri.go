package filecheck

import "bytes"

// pdfURIScan refuses a PDF with a string that a browser would run as a
// script when a link hands it over: a /URI action's (javascript:…),
// which contract §7 counts with scripts. Every string of the file is
// read, wherever it is (a URI may be an indirect object anywhere, and
// its key may be written /U#52I), inside stream data and inflated
// object streams too: compressed bytes do not spell a string that
// decodes to "javascript:" by chance (eleven bytes in order).
//
// A string is decoded as viewers decode it: a literal string's escapes
// (\n, \ddd, a backslash before an end of line or any other byte), a hex
// string's digits (white space between them), UTF-16BE after its byte
// order mark. The text is then read as a browser's URL parser reads it:
// C0 controls and spaces before it dropped, tabs and ends of line
// anywhere dropped, letters in any case. It counts when it starts with
// javascript: or vbscript:. The scan keeps its state from one window to
// the next, so a string of any length, however padded, is read whole.
// A string is taken to start at every "(" and "<", in comments too; one
// given up on at a "(" or "<" (or the byte after one, half a UTF-16
// character) is searched again from there, since a reader may start the
// real string at it ("/URI %(<LF>(javascript:…)": the twenty-first
// session's review).
type pdfURIScan struct {
	on      bool
	hex     bool
	depth   int   // parentheses open in a literal string
	esc     uint8 // literal: 0, escBackslash, escCR, or escOctal+n after n octal digits
	oct     byte
	nib     int16  // hex: the high nibble read, or -1
	bom     []byte // the string's first bytes while they may be a byte order mark
	utf16   bool
	le      bool  // UTF-16 little-endian: the low byte first
	hi      int16 // UTF-16: the high byte read, or -1
	js, vb  int8  // letters of each scheme matched; -1 when it cannot match
	started bool  // a character past the leading controls and spaces
	start   int64 // the offset of the string's ( or <
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

// scan reads the offsets [w.from, w.limit) of w.
func (s *pdfURIScan) scan(w *window) *Finding {
	buf, lim := w.buf, w.index(w.limit)
	open, lt := -1, -1 // the next ( and < at or after i, once looked for
	next := func(i int, c byte) int {
		if k := bytes.IndexByte(buf[i:lim], c); k >= 0 {
			return i + k
		}
		return lim
	}
	for i := w.index(w.from); i < lim; {
		if !s.on {
			if open < i {
				open = next(i, '(')
			}
			if lt < i {
				lt = next(i, '<')
			}
			j := min(open, lt)
			if j >= lim {
				return nil
			}
			s.begin(buf[j] == '<')
			s.start = w.base + int64(j)
			i = j + 1
			continue
		}
		for ; i < lim && s.on; i++ {
			if s.byte(buf[i]) {
				return pdfScriptURI()
			}
			if !s.on {
				// The string was given up on at buf[i]. A reader may
				// start a string there, or at the byte before (half a
				// UTF-16 character here): a "(" or "<" the scan read
				// inside a string no reader reads ("/URI %(<LF>(javascript:…)",
				// the comment's "(" taken for a string's start: the
				// twenty-first session's review). Search again from it.
				for _, k := range []int{i - 1, i} {
					if k >= 0 && w.base+int64(k) > s.start && (buf[k] == '(' || buf[k] == '<') {
						i, open, lt = k-1, -1, -1
						break
					}
				}
			}
		}
	}
	return nil
}

func (s *pdfURIScan) begin(hex bool) {
	*s = pdfURIScan{on: true, hex: hex, depth: 1, nib: -1, hi: -1, bom: s.bom[:0]}
}

// byte reads one byte of the string; it reports whether the string has
// been read to a script scheme.
func (s *pdfURIScan) byte(c byte) bool {
	if s.hex {
		switch {
		case c == '>':
			if s.nib >= 0 {
				return s.decoded(byte(s.nib << 4))
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
		default:
			s.on = false // "<<", or no hex string
		}
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
func (s *pdfURIScan) decoded(b byte) bool {
	if !s.started && !s.utf16 && (len(s.bom) > 0 || b >= 0x80) {
		s.bom = append(s.bom, b)
		switch string(s.bom) {
		case "\xFE", "\xFF", "\xEF", "\xEF\xBB":
			return false
		case "\xFE\xFF":
			s.utf16 = true
			return false
		case "\xFF\xFE": // UTF-16LE, which MuPDF also reads
			s.utf16, s.le = true, true
			return false
		case "\xEF\xBB\xBF":
			s.bom = s.bom[:0]
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
func (s *pdfURIScan) char(c byte) bool {
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

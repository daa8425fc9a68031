package filecheck

import (
	"bytes"
	"slices"
)

// The URI scan's candidates (pdf_uri.go reads one string).
//
// A string is taken to start at every "(" and "<", in comments and
// inside other strings too: each starts a candidate, read beside those
// still alive (testdata/review29/uri-hexjunk*: a candidate given up
// on at a byte that is no "(" or "<" hid the real string's start, which
// the scan had read inside it; before, one string was read at a time and
// searched again only from a "(" or "<" at the byte it was given up on).
// Candidates in the same state are one (they read the same from there
// on), so the set stays small: a candidate dies at the first character
// that is no scheme's; more than maxURICandidates alive at once refuses
// the file as one that cannot be inspected (random bytes keep about one
// alive).
type pdfURIScan struct {
	live []pdfURIString
}

// maxURICandidates bounds the strings read at once (a PDF that keeps
// more alive is refused: no writer's does).
const maxURICandidates = 16

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
	for i := w.index(w.from); i < lim; i++ {
		if len(s.live) == 0 {
			// No string open: the next ( or <, each found by IndexByte
			// (IndexAny reads a byte at a time).
			if open < i {
				open = next(i, '(')
			}
			if lt < i {
				lt = next(i, '<')
			}
			if i = min(open, lt); i >= lim {
				return nil
			}
		}
		if s.hexOnly() {
			// Hex strings skip every byte but a digit and ">"; only a new
			// candidate's "(" or "<" matters besides.
			for i < lim && !uriHexStop[buf[i]] {
				i++
			}
			if i == lim {
				return nil
			}
		}
		c := buf[i]
		n := 0
		for k := range s.live {
			t := &s.live[k]
			if t.byte(c) {
				return pdfScriptURI()
			}
			if t.on && (n == 0 || !slices.Contains(s.live[:n], *t)) {
				if n != k {
					s.live[n] = *t
				}
				n++
			}
		}
		s.live = s.live[:n]
		if c == '(' || c == '<' {
			var t pdfURIString
			t.begin(c == '<')
			if !slices.Contains(s.live, t) {
				s.live = append(s.live, t)
			}
			if len(s.live) > maxURICandidates {
				return pdfUninspectable("demasiadas cadenas abiertas a la vez para leer sus enlaces")
			}
		}
	}
	return nil
}

// uriHexStop are the bytes that change a hex string read past its first
// byte (a digit, ">"), or start a candidate ("(", "<").
var uriHexStop = func() (t [256]bool) {
	for c := range 256 {
		t[c] = pdfClass[c]&pdfClassHex != 0 || c == '>' || c == '(' || c == '<'
	}
	return t
}()

// hexOnly reports whether every live candidate is a hex string past its
// first byte, which any byte but those of uriHexStop leaves as it is.
func (s *pdfURIScan) hexOnly() bool {
	for k := range s.live {
		if !s.live[k].hex || !s.live[k].hexRead {
			return false
		}
	}
	return len(s.live) > 0
}

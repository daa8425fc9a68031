package filecheck

import (
	"bytes"
	"strconv"
)

// The lexical rules of PDF (ISO 32000-1 §7.2) that pdfCheck needs.

const (
	pdfClassWhite = 1 << iota // NUL, HT, LF, FF, CR, SP
	pdfClassDelim             // ( ) < > [ ] { } / %
	pdfClassHex               // 0-9 A-F a-f
)

var pdfClass = func() (t [256]uint8) {
	for _, c := range []byte("\x00\t\n\f\r ") {
		t[c] |= pdfClassWhite
	}
	for _, c := range []byte("()<>[]{}/%") {
		t[c] |= pdfClassDelim
	}
	for _, c := range []byte("0123456789ABCDEFabcdef") {
		t[c] |= pdfClassHex
	}
	return t
}()

func pdfWhite(c byte) bool { return pdfClass[c]&pdfClassWhite != 0 }

// pdfEnds reports whether c ends a name or a keyword.
func pdfEnds(c byte) bool { return pdfClass[c]&(pdfClassWhite|pdfClassDelim) != 0 }

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

// pdfNameAt decodes the name whose solidus is at buf[i] into dst, #xx
// escapes resolved (a # not followed by two hex digits is itself, as
// viewers read it). It returns false when the name is longer than dst:
// no name that matters is. The name ends at whitespace, a delimiter or
// the end of buf, which is the end of the file when the name starts
// before a window's limit and is short enough to matter.
func pdfNameAt(buf []byte, i int, dst *[16]byte) ([]byte, bool) {
	n := 0
	for j := i + 1; j < len(buf); {
		c := buf[j]
		if pdfEnds(c) {
			break
		}
		j++
		if c == '#' && j+1 < len(buf) && pdfClass[buf[j]]&pdfClassHex != 0 && pdfClass[buf[j+1]]&pdfClassHex != 0 {
			c = unhex(buf[j])<<4 | unhex(buf[j+1])
			j += 2
		}
		if n == len(dst) {
			return nil, false
		}
		dst[n] = c
		n++
	}
	return dst[:n], true
}

// pdfNameEnd returns the index after the name whose solidus is at buf[i].
func pdfNameEnd(buf []byte, i int) int {
	for i++; i < len(buf) && !pdfEnds(buf[i]); i++ {
	}
	return i
}

// pdfKeyword reports whether the n letters at w.buf[e] stand alone as a
// keyword: not inside a longer run of regular characters, not a name.
func pdfKeyword(w *window, e, n int) bool {
	buf := w.buf
	if e > 0 && (buf[e-1] == '/' || !pdfEnds(buf[e-1])) {
		return false
	}
	if e+n < len(buf) {
		return pdfEnds(buf[e+n])
	}
	return w.final
}

// pdfObjNumber reads the object number before the keyword obj at
// w.buf[e]: "12 0 obj", or "12 0obj" as lenient lexers read it, with a
// plus sign or leading zeros as pdf.js reads them ("+12 0obj",
// "000012 00000 obj"). ok says it was read; keyword says obj stands
// alone or after digits, so that a viewer may start an object there even
// when its number could not be read here (the twentieth session's review:
// pdf.js took a filter from "+7 0obj", which was no definition here).
func pdfObjNumber(w *window, e int) (num uint32, ok, keyword bool) {
	buf := w.buf
	if e+3 < len(buf) && !pdfEnds(buf[e+3]) || e+3 >= len(buf) && !w.final {
		return 0, false, false
	}
	back := func(j int, in func(byte) bool) int {
		for j > 0 && in(buf[j-1]) {
			j--
		}
		return j
	}
	digit := func(c byte) bool { return c >= '0' && c <= '9' }
	genEnd := back(e, pdfWhite)
	gen := back(genEnd, digit)
	numEnd := back(gen, pdfWhite)
	start := back(numEnd, digit)
	keyword = pdfKeyword(w, e, 3) || gen < genEnd
	lead := start // the sign, or the first digit
	if lead > 0 && buf[lead-1] == '+' {
		lead--
	}
	switch {
	case gen == genEnd || numEnd == gen || start == numEnd:
		return 0, false, keyword
	case lead == 0 && w.base != 0, lead > 0 && (!pdfEnds(buf[lead-1]) || buf[lead-1] == '/'):
		return 0, false, keyword // more digits may come before, or it is part of a name
	}
	if _, err := strconv.ParseUint(pdfDigits(buf[gen:genEnd]), 10, 16); err != nil {
		return 0, false, keyword
	}
	n, err := strconv.ParseUint(pdfDigits(buf[start:numEnd]), 10, 32)
	if err != nil {
		return 0, false, keyword
	}
	return uint32(n), true, keyword
}

// pdfDigits is a run of digits without its leading zeros ("0" for zeros
// only), at most 12 of them: more is a number no object has.
func pdfDigits(d []byte) string {
	for len(d) > 1 && d[0] == '0' {
		d = d[1:]
	}
	return string(d[:min(len(d), 12)])
}

// pdfActive is the refusal of a PDF with the active name name.
func pdfActive(name string) *Finding {
	return refuse(ActiveContent, "el PDF contiene contenido activo (/"+name+
		"); no se aceptan PDF con scripts, acciones de ejecución, adjuntos, multimedia ni formularios XFA")
}

// pdfActiveName reports whether name is one of contract §7's: scripts,
// launch actions, attachments, rich media, XFA forms. An attachment
// needs no /Type /EmbeddedFile (ISO 32000-1 Table 44 makes it optional),
// so the names that every attachment is reached by count too: the
// /EmbeddedFiles name tree, a file specification's /EF and the
// /FileAttachment annotation. So do the two that pdf.js hands a plain
// stream out as an attachment by, with no /EF at all (since the
// twenty-first session): a rendition action (/S /Rendition), whose media
// clip's /D may be a stream, and a sound (/Subtype /Sound, the key
// /Sound), whose stream it plays as a WAV file.
func pdfActiveName(name []byte) bool {
	switch string(name) {
	case "JavaScript", "JS", "Launch", "EmbeddedFile", "EmbeddedFiles", "EF", "FileAttachment", "RichMedia", "XFA", "Rendition", "Sound":
		return true
	}
	return false
}

// pdfShortName reports whether name is an active name of two letters,
// which compressed bytes spell by chance (about once in 2^28 bytes): it
// does not count inside compressed stream data, where each has a longer
// companion that does (/S /JavaScript beside /JS; /EmbeddedFiles or
// /FileAttachment, and /Type /Filespec, beside /EF).
func pdfShortName(name []byte) bool {
	return len(name) == 2 && (string(name) == "JS" || string(name) == "EF")
}

// pdfSyntax follows a PDF's literal strings, comments, hex strings and
// the nesting of dictionaries and arrays outside stream data, so that the letters "obj" count
// as an object's start only at the top level: not inside a string, a
// comment or a dictionary, where a viewer does not read them as one. When
// it loses its way (an unbalanced parenthesis or dictionary) it sees
// fewer objects start, not more; it starts afresh after each endstream.
type pdfSyntax struct {
	pos   int64 // the offset up to which the state is known
	state uint8
	nest  int    // parentheses open in a string
	depth int    // dictionaries and arrays open
	kinds uint64 // bit i: the (i+1)th open container is an array
	odd   bool   // a closer that closed nothing: readers may nest otherwise
	lost  bool   // a container past the 64 whose kinds are kept: closers unchecked
}

const (
	synTop = iota
	synString
	synComment
	synHex
)

// top reports whether the offset the state was advanced to is at the top
// level.
func (s *pdfSyntax) top() bool { return s.state == synTop && s.depth == 0 }

// reset starts afresh at offset pos.
func (s *pdfSyntax) reset(pos int64) { *s = pdfSyntax{pos: pos} }

// advance follows w's bytes from s.pos up to the offset to.
func (s *pdfSyntax) advance(w *window, to int64) {
	buf := w.buf
	i, end := w.index(s.pos), w.index(to)
	cr := -1 // the next CR at or after i, or end: most PDFs have none
	for i < end {
		switch s.state {
		case synComment:
			if cr < i {
				if cr = bytes.IndexByte(buf[i:end], '\r'); cr < 0 {
					cr = end
				} else {
					cr += i
				}
			}
			j := bytes.IndexByte(buf[i:cr], '\n')
			if j < 0 {
				j = cr - i
			}
			if i += j; i < end {
				s.state = synTop
			}
		case synHex:
			j := bytes.IndexByte(buf[i:end], '>')
			if j < 0 {
				i = end
				break
			}
			i += j + 1
			s.state = synTop
		case synString:
			for ; i < end && s.state == synString; i++ {
				switch buf[i] {
				case '\\':
					i++ // the escaped byte, whatever it is
				case '(':
					s.nest++
				case ')':
					if s.nest--; s.nest == 0 {
						s.state = synTop
					}
				}
			}
		default:
			for ; i < end && s.state == synTop; i++ {
				switch buf[i] {
				case '(':
					s.state, s.nest = synString, 1
				case '%':
					s.state = synComment
				case '<':
					if i+1 < len(buf) && buf[i+1] == '<' {
						s.open(false)
						i++
					} else {
						s.state = synHex
					}
				case '>':
					if i+1 < len(buf) && buf[i+1] == '>' {
						s.close(false)
						i++
					}
				case '[':
					s.open(true)
				case ']':
					s.close(true)
				}
			}
		}
	}
	s.pos = max(s.pos, w.base+int64(i))
}

// nextIndex returns the index of the first sep in buf that starts in
// [i, lim), or lim. It looks for sep's last byte, the rarest in PDF text
// of the words looked for here ("obj", "stream") and no rarer than any
// other in compressed data, and compares the rest backwards.
func nextIndex(buf []byte, i, lim int, sep string) int {
	last, n := sep[len(sep)-1], len(sep)
	for j := i + n - 1; j < min(len(buf), lim+n-1); {
		k := bytes.IndexByte(buf[j:min(len(buf), lim+n-1)], last)
		if k < 0 {
			break
		}
		j += k
		if string(buf[j-n+1:j+1]) == sep {
			return j - n + 1
		}
		j++
	}
	return lim
}

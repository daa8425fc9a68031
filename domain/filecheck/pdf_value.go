package filecheck

// Reading one PDF value where it is written: the value of a stream
// dictionary's /Filter, /DecodeParms or /Length, and the value of an
// object definition ("N G obj"), as far as following references needs.
// The lexer reads as lenient viewers do (a number ends at the first byte
// that is not a digit or a point, so "12 0R" is a reference; a comment is
// white space), and gives up on what it does not know: a value cut by the
// end of the bytes at hand, more than maxValueRefs references. A value it gives up on is
// valUnreadable, which the callers take for the worst.

// Kinds of value.
const (
	valUnreadable = iota
	valInt
	valName
	valDict
	valArray
	valRef
	valNull
	valOther // a string, a real number, a boolean
)

// maxValueRefs is the most references one value may hold and be read.
const maxValueRefs = 4

// pdfValue is one value: its kind, an integer's value, and the object
// numbers of the references in it (at any depth of an array).
type pdfValue struct {
	kind  uint8
	n     int64
	nrefs uint8
	refs  [maxValueRefs]uint32
}

const (
	tokEnd = iota // the bytes at hand ended before the token did
	tokBad
	tokNum
	tokName
	tokWord
	tokDictOpen
	tokDictClose
	tokArrOpen
	tokArrClose
	tokString
)

type pdfLexer struct {
	buf   []byte
	i     int
	final bool // buf ends where the file does
}

type pdfTok struct {
	kind     uint8
	integral bool  // a number without a fraction (12 or 12.0)
	n        int64 // a number's integer part, at most 1<<33
	word     []byte
}

// run returns the end of the run of bytes from i for which in holds, or
// -1 when the bytes at hand end first and more may follow.
func (l *pdfLexer) run(i int, in func(byte) bool) int {
	for ; i < len(l.buf); i++ {
		if !in(l.buf[i]) {
			return i
		}
	}
	if l.final {
		return i
	}
	return -1
}

func (l *pdfLexer) next() pdfTok {
	for {
		for l.i < len(l.buf) && pdfWhite(l.buf[l.i]) {
			l.i++
		}
		if l.i >= len(l.buf) || l.buf[l.i] != '%' {
			break
		}
		// A comment is white space to viewers, to its end of line: "5 0
		// %c<LF>R" is a reference to MuPDF (the twentieth session's review).
		end := l.run(l.i, func(b byte) bool { return b != '\r' && b != '\n' })
		if end < 0 {
			return pdfTok{kind: tokEnd}
		}
		l.i = end
	}
	if l.i >= len(l.buf) {
		return pdfTok{kind: tokEnd}
	}
	start, c := l.i, l.buf[l.i]
	two := func(d byte) (bool, bool) { // the byte after c is d; known
		if start+1 < len(l.buf) {
			return l.buf[start+1] == d, true
		}
		return false, l.final
	}
	switch {
	case c == '/':
		end := l.run(start+1, func(b byte) bool { return !pdfEnds(b) })
		if end < 0 {
			return pdfTok{kind: tokEnd}
		}
		l.i = end
		return pdfTok{kind: tokName}
	case c == '<':
		if dict, known := two('<'); !known {
			return pdfTok{kind: tokEnd}
		} else if dict {
			l.i += 2
			return pdfTok{kind: tokDictOpen}
		}
		end := l.run(start+1, func(b byte) bool { return b != '>' })
		if end < 0 || end == len(l.buf) {
			return pdfTok{kind: tokEnd}
		}
		l.i = end + 1
		return pdfTok{kind: tokString}
	case c == '>':
		if dict, known := two('>'); !known {
			return pdfTok{kind: tokEnd}
		} else if dict {
			l.i += 2
			return pdfTok{kind: tokDictClose}
		}
		return pdfTok{kind: tokBad}
	case c == '[':
		l.i++
		return pdfTok{kind: tokArrOpen}
	case c == ']':
		l.i++
		return pdfTok{kind: tokArrClose}
	case c == '(':
		return l.literal()
	case c == '+' || c == '-' || c == '.' || c >= '0' && c <= '9':
		return l.number()
	case pdfEnds(c): // { } and the delimiters handled above
		return pdfTok{kind: tokBad}
	}
	end := l.run(start, func(b byte) bool { return !pdfEnds(b) })
	if end < 0 {
		return pdfTok{kind: tokEnd}
	}
	l.i = end
	return pdfTok{kind: tokWord, word: pdfKeywordDecoded(l.buf[start:end])}
}

// literal skips a literal string, nested parentheses and escapes kept.
func (l *pdfLexer) literal() pdfTok {
	depth := 0
	for j := l.i; j < len(l.buf); j++ {
		switch l.buf[j] {
		case '\\':
			j++
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				l.i = j + 1
				return pdfTok{kind: tokString}
			}
		}
	}
	return pdfTok{kind: tokEnd}
}

// number reads a sign, digits and one point.
func (l *pdfLexer) number() pdfTok {
	t := pdfTok{kind: tokNum, integral: true}
	j, point, digits := l.i, false, 0
	if c := l.buf[j]; c == '+' || c == '-' {
		j++
	}
scan:
	for ; j < len(l.buf); j++ {
		switch c := l.buf[j]; {
		case c >= '0' && c <= '9':
			digits++
			if point {
				t.integral = t.integral && c == '0'
			} else {
				t.n = min(t.n*10+int64(c-'0'), 1<<33)
			}
		case c == '.' && !point:
			point = true
		default:
			break scan
		}
	}
	switch {
	case j == len(l.buf) && !l.final:
		return pdfTok{kind: tokEnd}
	case digits == 0:
		return pdfTok{kind: tokBad}
	}
	l.i = j
	return t
}

// valueSpan bounds how far a value is read, from the end of the name or
// the keyword obj before it: every window holds lookAhead bytes past
// where a name (at most 49 bytes written) starts, so a value read within
// the span reads the same in every window. One not read whole within it
// (300 bytes of comment before it: the twentieth session's second review
// found the answer changing with the window) cannot be read.
const valueSpan = lookAhead - 64

// pdfValueAt reads the value that starts at buf[i] (after whitespace);
// final says whether buf ends where the file does.
func pdfValueAt(buf []byte, i int, final bool) pdfValue {
	if len(buf)-i > valueSpan {
		buf, final = buf[:i+valueSpan], false
	}
	l := pdfLexer{buf: buf, i: i, final: final}
	var v pdfValue
	t := l.next()
	switch t.kind {
	case tokNum:
		if !t.integral {
			return pdfValue{kind: valOther}
		}
		after := l.i
		switch gen := l.next(); {
		case gen.kind == tokEnd:
			return v
		case gen.kind == tokNum && gen.integral:
			switch r := l.next(); {
			case r.kind == tokEnd:
				return v
			case r.kind == tokWord && string(r.word) == "R":
				v.kind = valRef
				return v.withRef(t.n)
			}
		}
		l.i = after
		return pdfValue{kind: valInt, n: t.n}
	case tokName:
		return pdfValue{kind: valName}
	case tokDictOpen:
		return pdfValue{kind: valDict}
	case tokArrOpen:
		return l.array()
	case tokString:
		return pdfValue{kind: valOther}
	case tokWord:
		switch string(t.word) {
		case "null":
			return pdfValue{kind: valNull}
		case "true", "false":
			return pdfValue{kind: valOther}
		}
	}
	return v
}

// array reads the rest of an array whose [ was read, keeping the
// references in it at any depth (inside a dictionary in it too).
func (l *pdfLexer) array() pdfValue {
	v := pdfValue{kind: valArray}
	depth := 1
	var a, b pdfTok // the two tokens before this one
	for depth > 0 {
		t := l.next()
		switch t.kind {
		case tokEnd, tokBad:
			return pdfValue{}
		case tokArrOpen, tokDictOpen:
			depth++
		case tokArrClose, tokDictClose:
			depth--
		case tokWord:
			if string(t.word) == "R" && a.kind == tokNum && a.integral && b.kind == tokNum && b.integral {
				if v = v.withRef(a.n); v.kind == valUnreadable {
					return v
				}
			}
		}
		a, b = b, t
	}
	return v
}

// withRef adds a reference to object num; a value with more than
// maxValueRefs, or naming a number no object has, is unreadable.
func (v pdfValue) withRef(num int64) pdfValue {
	if int(v.nrefs) == maxValueRefs || num < 0 || num > 1<<32-1 {
		return pdfValue{}
	}
	v.refs[v.nrefs] = uint32(num)
	v.nrefs++
	return v
}

package filecheck

import "bytes"

// Where the two-letter markers /JS and /EF count inside stream data
// (pdf.go: compressed bytes spell them by chance, so stream data alone
// does not count them). The twentieth session's fourth review reached an
// attachment past that exception twice, with no object stream, and the
// fifth around both rules below:
//
//   - An object written whole inside another stream's data ("10 0 obj <<
//     /EF ... >>" in an image's or an uncompressed stream's data), which
//     the cross-reference points at: every reader takes an object from
//     "N G obj" at the offset it is given. Once such a definition starts
//     in data (pdfDefinitionAt: what pdf.js lexes as a number, then obj),
//     the markers after it count, in all data to the end of the file (the
//     object may run past an "endstream" in one of its strings: the fifth
//     review). Compressed bytes spell a number's end and a delimited obj
//     about once in 2^32 bytes, and a marker after it about once in 2^27.
//   - The keyword stream where no reader starts data: inside a string, a
//     comment, a dictionary or an array, or anywhere but after ">>"
//     ("/Y ( stream\n) /EF ... /Z (endstream)", a bare "stream" key or
//     value, "stream<LF>trailer << ... >>" that readers rebuild a file
//     from). No data starts there, unless what was said since the object
//     began marks an object stream, which a viewer may take from an
//     offset inside it: then its data is read as one, the markers count
//     in it (pseudo), the syntax goes on through it as a reader's lexer
//     would, and what the dictionary said is kept after it.

// inText reports whether the keyword stream at w.buf[e], outside data,
// starts no data: where no reader starts any (in a string, a comment, a
// dictionary or an array, or anywhere but after ">>"); it notes pseudo
// data when it does start some there (an object stream's dictionary).
func (p *pdfCheck) inText(w *window, e int) bool {
	p.syntax.advance(w, w.base+int64(e))
	if p.syntax.top() && !p.syntax.lost && pdfAfterDict(w, e) {
		return false
	}
	if p.syntax.top() && !p.syntax.lost {
		// At the top level but not after ">>": a stream whose dictionary
		// is a reference ("5 0 obj 6 0 R stream", which MuPDF reads, the
		// sixth review), or no stream at all. onStream refuses it.
		p.stray = true
		return true
	}
	if !p.dict.objStm {
		return true
	}
	p.pseudo = true
	return false
}

// pdfDefinitionAt reports whether the keyword obj at w.buf[e] may end
// "N G obj" as some reader lexes it: a delimiter (or the end) after it,
// and before it, across white space and comments, what ends a number to
// pdf.js (a digit, or "." "+" "-": it reads "0." and a lone "-" as 0: the
// fifth review), or white space and comments reaching back to where the
// window begins (the number may lie before it).
func pdfDefinitionAt(w *window, e int) bool {
	buf := w.buf
	if e+3 < len(buf) && !pdfEnds(buf[e+3]) || e+3 >= len(buf) && !w.final {
		return false
	}
	return pdfNumberBefore(w, e)
}

// pdfNumberBefore reports whether what comes before w.buf[e], across white
// space and comments, may end a number (pdfDefinitionAt says which).
func pdfNumberBefore(w *window, e int) bool {
	buf := w.buf
	switch pdfGapBefore(buf, e, true, func(j int) bool {
		c := buf[j-1]
		return c >= '0' && c <= '9' || c == '.' || c == '+' || c == '-'
	}) {
	case gapStart:
		return w.base != 0 // the number may lie before the window
	case gapNot:
		return false
	}
	return true // found, or more comments than followed: take it for one
}

// pdfAfterDict reports whether the keyword at w.buf[e] follows ">>" across
// white space and comments: the only place a reader starts stream data
// (the fifth review: a bare "stream" inside a dictionary, an array or
// between objects started data here and exempted the markers after it).
func pdfAfterDict(w *window, e int) bool {
	buf := w.buf
	return pdfGapBefore(buf, e, false, func(j int) bool { return j >= 2 && buf[j-1] == '>' && buf[j-2] == '>' }) == gapFound
}

// What pdfGapBefore finds before a keyword.
const (
	gapFound = iota // the byte before the gap is the one asked for
	gapNot          // another byte stands there
	gapStart        // the gap (or a comment's line) reaches back to where buf begins
	gapLong         // more comments than four: not followed
)

// pdfGapBefore walks back from buf[e] across white space and comments
// ("10 0 %a<LF>%b<LF>obj": four at most) and asks is(j) of the byte
// before the gap, buf[j-1]. A comment ends at an end of line, and starts
// at the first % of that line, as a lexer that reads the line from its
// start sees it; with anyStart, at any % of the line too: a reader that
// starts where a cross-reference offset points may start after a %
// ("x<LF>%9 0 %c<LF>obj", the table pointing at the 9, is "9 0 obj" to
// every reader: the twenty-first session's review hid an object's /JS
// in data so).
func pdfGapBefore(buf []byte, e int, anyStart bool, is func(j int) bool) int {
	j := e
	for range 4 {
		was := j
		for j > 0 && pdfWhite(buf[j-1]) {
			j--
		}
		if j == 0 {
			return gapStart
		}
		if is(j) {
			return gapFound
		}
		// A comment ends at the first end of line in the white space
		// after it, which need not be its first byte: white space before
		// the line break is the comment's ("9 0 %c <LF>obj" is "9 0 obj"
		// to every reader: testdata/review29/def-trail-*).
		if j == e || !bytes.ContainsAny(buf[j:was], "\r\n") {
			return gapNot // no end of line before the keyword: no comment ends there
		}
		line := j
		for line > 0 && buf[line-1] != '\r' && buf[line-1] != '\n' {
			line--
		}
		if line == 0 {
			// The line may start before the window, its % with it (a
			// window holds 32 bytes before the offsets it handles: the
			// twenty-first session's review hid "9 0 %<200 bytes><LF>obj"
			// across a window's start).
			return gapStart
		}
		k := bytes.IndexByte(buf[line:j], '%')
		if k < 0 {
			return gapNot
		}
		for m := j - 1; anyStart && m > line+k; m-- {
			if buf[m] != '%' {
				continue
			}
			n := m
			for n > 0 && pdfWhite(buf[n-1]) {
				n--
			}
			if n > 0 && is(n) {
				return gapFound
			}
		}
		j = line + k
	}
	return gapLong
}

// open and close keep a stack of containers: a ">>" inside an array
// (pdf.js takes it for an element) or a "]" inside a dictionary closes
// nothing (the fifth review: "/X [ >> 1 0 obj ]" ended a dictionary here).
func (s *pdfSyntax) open(array bool) {
	if s.depth >= 64 {
		s.lost = true // past the kinds kept, closers go unchecked (the sixth review)
	}
	if s.depth < 64 && array {
		s.kinds |= 1 << s.depth
	} else if s.depth < 64 {
		s.kinds &^= 1 << s.depth
	}
	s.depth++
}

func (s *pdfSyntax) close(array bool) {
	if s.depth == 0 {
		return
	}
	if s.depth <= 64 && (s.kinds>>(s.depth-1)&1 == 1) != array {
		s.odd = true
		return
	}
	s.depth--
}

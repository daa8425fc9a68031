package filecheck

// Where the two-letter markers /JS and /EF count inside stream data
// (pdf.go: compressed bytes spell them by chance, so stream data alone
// does not count them). The twentieth session's fourth review reached an
// attachment past that exception twice, with no object stream:
//
//   - An object written whole inside another stream's data ("10 0 obj <<
//     /EF ... >>" in an image's or an uncompressed stream's data), which
//     the cross-reference points at: every reader takes an object from
//     "N G obj" at the offset it is given. Once such a definition starts
//     in the data (digits, then obj: pdfDefinitionAt), the markers after
//     it in the same data count. Compressed bytes spell a digit and a
//     delimited obj about once in 2^32 bytes, and a marker after it in
//     the same stream about once in 2^27 more.
//   - The keyword stream inside a string or a comment ("/Y ( stream\n)
//     /EF ... /Z (endstream)"): no reader starts data there, the check did.
//     Where the syntax (pdfSyntax) is in a string or a comment at the
//     keyword, no data starts, unless what was said since the object
//     began marks an object stream, which a viewer may take from an
//     offset inside the string: then its data is read as one, the
//     markers count in it (pseudo), and the syntax goes on through it,
//     as a viewer reading the string does.

// inText reports whether the keyword stream at w.buf[e], outside data,
// stands in a string or a comment and starts no data; it notes pseudo
// data when it does start some (an object stream's dictionary).
func (p *pdfCheck) inText(w *window, e int) bool {
	p.syntax.advance(w, w.base+int64(e))
	if p.syntax.state == synTop {
		return false
	}
	if !p.dict.objStm {
		return true
	}
	p.pseudo = true
	return false
}

// pdfDefinitionAt reports whether the keyword obj at w.buf[e] may end
// "N G obj": a delimiter (or the end) after it and a digit before it
// across white space, or white space reaching back to where the window
// begins (the digits may lie before it).
func pdfDefinitionAt(w *window, e int) bool {
	buf := w.buf
	if e+3 < len(buf) && !pdfEnds(buf[e+3]) || e+3 >= len(buf) && !w.final {
		return false
	}
	j := e
	for j > 0 && pdfWhite(buf[j-1]) {
		j--
	}
	if j == 0 {
		return w.base != 0
	}
	return buf[j-1] >= '0' && buf[j-1] <= '9'
}

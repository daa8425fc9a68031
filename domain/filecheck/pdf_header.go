package filecheck

import "bytes"

// pdfPrefix refuses what comes before a PDF's header, "%PDF-", which
// viewers look for in the first pdfHeaderWithin bytes (types.go): only
// what print workflows put there may, line by line:
//
//   - white space, and empty lines;
//
//   - comments, lines that start with %, as PostScript's "%!PS-Adobe"
//     and the "%%" lines of spoolers;
//
//   - PJL: the Universal Exit Language "ESC%-12345X", alone or followed
//     by a command, and "@PJL" command lines (HP's Printer Job Language,
//     as drivers wrap a job: "ESC%-12345X@PJL JOB", "@PJL ENTER
//     LANGUAGE=PDF").
//
//   - other lines of printable ASCII text (the PDF 2.0 examples put
//     "#" lines there, as a print workflow's prefix does),
//
// and no '<' at all, in a comment or a line of text either: a browser that is handed the
// file without a content type sniffs it as HTML when markup opens it
// (issue 32 found "<p><img src=x onerror=…>" before a valid PDF run by
// Chromium). Anything else is refused: a check that cannot say what the
// bytes before the header are does not let them through.
func pdfPrefix(head []byte) *Finding {
	at := bytes.Index(head[:min(len(head), pdfHeaderWithin+len("%PDF-"))], []byte("%PDF-"))
	if at <= 0 {
		return nil // at the start, or not found here (sniff found it in a held head)
	}
	prefix := head[:at]
	if m := activeContent(prefix); m != "" {
		return polyglot(m)
	}
	if bytes.IndexByte(prefix, '<') >= 0 {
		return refuse(TypeRefused, "el PDF tiene marcado antes de su cabecera %PDF-")
	}
	for _, line := range bytes.FieldsFunc(prefix, func(r rune) bool { return r == '\r' || r == '\n' }) {
		line = bytes.TrimLeft(line, " \t\f")
		line = bytes.TrimPrefix(line, []byte("\x1b%-12345X"))
		if len(line) == 0 || line[0] == '%' || bytes.HasPrefix(line, []byte("@PJL")) || printableText(line) {
			continue
		}
		return refuse(TypeRefused, "el PDF tiene antes de su cabecera %PDF- bytes que no son texto, comentarios ni líneas PJL")
	}
	return nil
}

// printableText reports whether line holds only printable ASCII and
// tabs: text no browser sniffs as markup once '<' is refused, and no
// byte-order mark or binary a reader could take for something else.
func printableText(line []byte) bool {
	for _, c := range line {
		if (c < 0x20 || c > 0x7e) && c != '\t' {
			return false
		}
	}
	return true
}

// keepTail keeps the last pdfTail bytes of the file in p.tail.
func (p *pdfCheck) keepTail(fresh []byte) {
	if len(fresh) >= pdfTail {
		p.tail = append(p.tail[:0], fresh[len(fresh)-pdfTail:]...)
		return
	}
	drop := max(0, len(p.tail)+len(fresh)-pdfTail)
	p.tail = append(p.tail[:copy(p.tail, p.tail[drop:])], fresh...)
}

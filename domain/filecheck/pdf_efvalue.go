package filecheck

// efKey reports whether name, an active name in stream data at w.buf[e],
// is /EF followed by what an embedded-file entry holds: "<<" or a
// reference, across white space and comments. Such an /EF counts in any
// data: a reader that parses the data as objects takes it as a key (the
// sixth review: ">>" where a dictionary's value belongs is the value to
// pdf.js, not its end, and the data after it the dictionary's).
// Compressed bytes spell that about once in 2^33 bytes.
func (p *pdfCheck) efKey(w *window, e int, name []byte) bool {
	return string(name) == "EF" && pdfDictValue(w, pdfNameEnd(w.buf, e))
}

// aaKey reports whether name, at w.buf[e], is /AA in stream data followed
// by "<<" or what may start a reference: from there on /JS and /EF count in
// every later data, as after an object defined in data (p.def). MuPDF runs
// a form field's /AA /F, /K, /V and /C scripts by the key /JS alone, with
// no /S /JavaScript (pdf-form.c), and reads a dictionary in stream data
// with no "N G obj" before it: a trailer that startxref points at inside
// data, or data its repair lexes as objects (the twenty-first session's
// review: a widget's format script ran on opening). Compressed bytes spell
// "/AA <<" about once in 2^40 bytes, and a marker must follow.
func (p *pdfCheck) aaKey(w *window, e int, name []byte) bool {
	return p.inData && string(name) == "AA" && pdfDictValue(w, pdfNameEnd(w.buf, e))
}

// pdfDictValue reports whether what follows w.buf[i:] across white space
// and comments is "<<" or may start a reference: any byte a number may
// start with (a digit, "+", "-", "."), since pdf.js reads "1-2 0 R",
// "12.0.0 R", "+<LF>12 0 R" and "12+0 R" as references (the seventh
// review walked past reading the reference here). Read within valueSpan,
// so every window answers alike; where the span or the window ends first
// it says yes.
func pdfDictValue(w *window, i int) bool {
	buf, final := w.buf, w.final
	if len(buf)-i > valueSpan {
		buf, final = buf[:i+valueSpan], false
	}
	for i < len(buf) && (pdfWhite(buf[i]) || buf[i] == '%') { // white space and comments
		if buf[i] == '%' {
			for i < len(buf) && buf[i] != '\r' && buf[i] != '\n' {
				i++
			}
			continue
		}
		i++
	}
	if i+1 >= len(buf) {
		return !final
	}
	c := buf[i]
	return c == '<' && buf[i+1] == '<' || c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'
}

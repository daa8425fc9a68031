package filecheck

// efKey reports whether name, an active name in stream data at w.buf[e],
// is /EF followed by what an embedded-file entry holds: "<<" or a
// reference "N G R", across white space and comments (numbers as pdf.js
// lexes them). Such an /EF counts in any data: a reader that parses the
// data as objects takes it as a key (the sixth review: ">>" where a
// dictionary's value belongs is the value to pdf.js, not its end, and the
// data after it the dictionary's). Compressed bytes spell that about once
// in 2^38 bytes.
func (p *pdfCheck) efKey(w *window, e int, name []byte) bool {
	return string(name) == "EF" && pdfDictValue(w, pdfNameEnd(w.buf, e))
}

// pdfDictValue reports whether what follows w.buf[i:] across white space
// and comments is "<<" or "N G R". Read within valueSpan, so every window
// answers alike; where the span or the window ends first it says yes.
func pdfDictValue(w *window, i int) bool {
	buf, final := w.buf, w.final
	if len(buf)-i > valueSpan {
		buf, final = buf[:i+valueSpan], false
	}
	white := func(j int) int { // white space and comments
		k := j
		for k < len(buf) && (pdfWhite(buf[k]) || buf[k] == '%') {
			if buf[k] == '%' {
				for k < len(buf) && buf[k] != '\r' && buf[k] != '\n' {
					k++
				}
				continue
			}
			k++
		}
		return k
	}
	num := func(j int) int { // a number as pdf.js lexes it: sign, digits, dots
		if j < len(buf) && (buf[j] == '+' || buf[j] == '-') {
			j++
		}
		k := j
		for k < len(buf) && (buf[k] >= '0' && buf[k] <= '9' || buf[k] == '.') {
			k++
		}
		if k == j {
			return -1
		}
		return k
	}
	i = white(i)
	if i+1 >= len(buf) {
		return !final
	}
	if buf[i] == '<' && buf[i+1] == '<' {
		return true
	}
	j := num(i)
	if j < 0 || j == white(j) {
		return false
	}
	if j = num(white(j)); j < 0 {
		return false
	}
	j = white(j)
	if j >= len(buf) {
		return !final
	}
	return buf[j] == 'R' && (j+1 >= len(buf) || pdfEnds(buf[j+1]))
}

package filecheck

import "bytes"

// Keywords written with #xx escapes (the twenty-first session's review).
// MuPDF lexes a keyword with its name lexer (pdf-lex.c: pdf_lex hands a
// run of regular characters to lex_name, which decodes #xx, then to
// pdf_token_from_keyword): "ob#6A" is obj to it and "str#65am" stream,
// while the check finds "obj" and "stream" as bytes. An object stream
// whose keyword was "str#65am" held a whole document (an /OpenAction
// script, a field's /AA /F /JS) that the check never inflated, and
// "9 0 ob#6A" in a plain stream's data defined an object whose /JS the
// check ignored. No writer escapes a keyword (ISO 32000-1 §7.3.5 gives
// escapes to names), so such a run refuses the file: "stream" anywhere,
// "obj" after what may end a number (as pdfDefinitionAt asks of obj).
// Compressed bytes spell one about once in 2^50 bytes. pdf.js, qpdf and
// pdfcpu do not decode keywords.

// maxEscapedKeyword is the longest run that may decode to obj or stream:
// "stream" with each letter written #xx.
const maxEscapedKeyword = 3 * len("stream")

// onHash handles a # at w.buf[e]: when it lies in a run of regular
// characters that is no name and decodes to obj or stream, the file is
// refused.
func (p *pdfCheck) onHash(w *window, e int) *Finding {
	buf := w.buf
	s := e
	for s > 0 && e-s <= maxEscapedKeyword && !pdfEnds(buf[s-1]) {
		s--
	}
	if s > 0 && buf[s-1] == '/' || e-s > maxEscapedKeyword {
		return nil // a name, or longer than any keyword
	}
	end := e
	for end < len(buf) && end-s <= maxEscapedKeyword && !pdfEnds(buf[end]) {
		end++
	}
	if end-s > maxEscapedKeyword || end == len(buf) && !w.final {
		return nil
	}
	var kw [maxEscapedKeyword]byte
	n := 0
	for j := s; j < end; j++ {
		c := buf[j]
		if c == '#' && j+2 < end && pdfClass[buf[j+1]]&pdfClassHex != 0 && pdfClass[buf[j+2]]&pdfClassHex != 0 {
			c = unhex(buf[j+1])<<4 | unhex(buf[j+2])
			j += 2
		}
		kw[n] = c
		n++
	}
	switch string(kw[:n]) {
	case "stream":
		return pdfUninspectable("la palabra «stream» está escrita con #xx, que solo MuPDF lee como tal")
	case "obj":
		if pdfNumberBefore(w, s) {
			return pdfUninspectable("la palabra «obj» está escrita con #xx, que solo MuPDF lee como tal")
		}
	}
	return nil
}

// pdfKeywordDecoded is a keyword as MuPDF reads it: with its name lexer,
// #xx escapes decoded ("7 0 #52" is a reference to it: the twenty-first
// session's review hid an uncompressed object stream's long /Length so).
func pdfKeywordDecoded(word []byte) []byte {
	if bytes.IndexByte(word, '#') < 0 {
		return word
	}
	out := make([]byte, 0, len(word))
	for j := 0; j < len(word); j++ {
		c := word[j]
		if c == '#' && j+2 < len(word) && pdfClass[word[j+1]]&pdfClassHex != 0 && pdfClass[word[j+2]]&pdfClassHex != 0 {
			c = unhex(word[j+1])<<4 | unhex(word[j+2])
			j += 2
		}
		out = append(out, c)
	}
	return out
}

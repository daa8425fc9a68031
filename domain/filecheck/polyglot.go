package filecheck

import "bytes"

// activeMarkers are the openings of script or markup that a document or
// image has no reason to carry in the clear: a file that holds one is a
// polyglot (a PDF or JPEG that is also PHP or HTML) and is refused.
var activeMarkers = []string{"<?php", "<?=", "<script", "<html", "<svg", longestMarker, "<iframe", "<body", "<object", "<embed"}

const longestMarker = "<!doctype html"

// activeContent returns the first active marker found in data, matching
// case-insensitively without copying the content.
func activeContent(data []byte) string {
	for i := bytes.IndexByte(data, '<'); i >= 0; {
		if m := activeMarkerAt(data[i:]); m != "" {
			return m
		}
		j := bytes.IndexByte(data[i+1:], '<')
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return ""
}

// activeMarkerAt returns the active marker that rest starts with, in any
// case, or "". The markers are ASCII, so a byte-wise ASCII fold is
// exactly a Unicode one here, and the second byte rules most '<' out
// (in binary data a '<' comes once in 256 bytes).
func activeMarkerAt(rest []byte) string {
	if len(rest) < 2 {
		return ""
	}
	switch rest[1] | 0x20 {
	case '?', '!', 's', 'h', 'i', 'b', 'o', 'e':
	default:
		return ""
	}
	for _, m := range activeMarkers {
		if hasPrefixFold(rest, m) {
			return m
		}
	}
	return ""
}

// hasPrefixFold reports whether b starts with lower, a lower-case ASCII
// string, in any case.
func hasPrefixFold(b []byte, lower string) bool {
	if len(b) < len(lower) {
		return false
	}
	for i := 0; i < len(lower); i++ {
		c := b[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lower[i] {
			return false
		}
	}
	return true
}

// polyglotCheck looks for active markers anywhere in a file of any type.
type polyglotCheck struct{}

func (polyglotCheck) check(w *window) *Finding {
	buf, lim := w.buf, w.index(w.limit)
	for i := w.index(w.from); i < lim; {
		j := bytes.IndexByte(buf[i:lim], '<')
		if j < 0 {
			break
		}
		if m := activeMarkerAt(buf[i+j:]); m != "" {
			return refuse(TypeRefused, "el archivo contiene contenido activo ("+m+"); no se aceptan archivos políglotas")
		}
		i += j + 1
	}
	return nil
}

func (polyglotCheck) finish(int64) *Finding { return nil }

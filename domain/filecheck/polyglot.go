package filecheck

import (
	"bytes"
	"math"
)

// activeMarkers are the openings of script or markup that a document or
// image has no reason to carry as text: a file that holds one where a
// reader takes bytes as text is a polyglot (a PDF or JPEG that is also
// PHP or HTML) and is refused.
//
// Where a marker is looked for is contract §10's rule, and each type's
// check says where that is, as it walks the file: PDF bytes outside
// stream data and after the last %%EOF (pdf.go); JPEG COM and APPn
// segments and bytes after EOI (jpeg.go); every PNG chunk's data, the
// compressed text of zTXt, iTXt and iCCP inflated, and bytes after IEND
// (image.go, pngtext.go); every byte of a TIFF but its image data
// (tifftext.go). Compressed or entropy-coded data (stream contents, JPEG
// scans, compressed IDAT, strips and tiles) is never searched: random
// bytes spell "<?=" once in 16 MiB, so searching them refuses real scans
// in proportion to their size. Image data stored as it is is searched
// as pixels are (pixeltext.go). No byte comes before a signature: a file
// that does not start with its type's signature is refused before any
// of this (sniff).
var activeMarkers = []string{"<?php", "<?=", "<script", "<html", "<svg", longestMarker, "<iframe", "<body", "<object", "<embed"}

const longestMarker = "<!doctype html"

// polyglot is the refusal of a file that carries marker m as text.
func polyglot(m string) *Finding {
	return refuse(TypeRefused, "el archivo contiene contenido activo ("+m+"); no se aceptan archivos políglotas")
}

// activeContent returns the first active marker found in data, matching
// case-insensitively without copying the content.
func activeContent(data []byte) string { return markerIn(data, 0, len(data)) }

// markerIn returns the first active marker that starts in buf[i:lim]; a
// marker may run on past lim into the rest of buf.
func markerIn(buf []byte, i, lim int) string {
	for i < lim {
		j := bytes.IndexByte(buf[i:lim], '<')
		if j < 0 {
			break
		}
		if m := activeMarkerAt(buf[i+j:]); m != "" {
			return m
		}
		i += j + 1
	}
	return ""
}

// activeMarkerAt returns the active marker that rest starts with, in any
// case, or "". The markers are ASCII, so a byte-wise ASCII fold is
// exactly a Unicode one here, and the second byte rules most '<' out
// (in binary data a '<' comes once in 256 bytes).
//
// A marker written in UCS-2 or UTF-16, of either byte order (a Windows
// XP tag, an EXIF UserComment in UNICODE, XMP in UTF-16), is each of its
// characters followed by a 0 byte, or preceded by one: either way, from
// its '<' on, its characters with a 0 between each two. Readers show it
// as the same text, so it is the same marker (wideMarkerAt).
func activeMarkerAt(rest []byte) string {
	if len(rest) < 2 {
		return ""
	}
	switch rest[1] | 0x20 {
	case '?', '!', 's', 'h', 'i', 'b', 'o', 'e':
	case 0x20: // 0 or a space; a space starts no marker
		if rest[1] == 0 {
			return wideMarkerAt(rest)
		}
		return ""
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

// wideMarkerAt is activeMarkerAt for a marker with a 0 byte after each
// of its characters but the last.
func wideMarkerAt(rest []byte) string {
	for _, m := range activeMarkers {
		if len(rest) < 2*len(m)-1 {
			continue
		}
		i := 0
		for i < len(m) && (i == 0 || rest[2*i-1] == 0) && hasPrefixFold(rest[2*i:], m[i:i+1]) {
			i++
		}
		if i == len(m) {
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

// toEnd is the end of a span that runs to the end of the file.
const toEnd = math.MaxInt64

// textSpans are the stretches of a file (offsets [from, to)) that its
// type's check found to be text, as it walks the file. Each window
// searches the part of them it handles, [w.from, w.limit), so every byte
// of a span is searched once, in the window that handles it; a marker
// that starts in a span is read whole, even when it runs on past it.
type textSpans struct {
	pending [][2]int64 // spans that reach past the last window's limit
	// note: a marker found is noted in hit, not refused (pngdata.go).
	note, hit bool
}

// add searches the part of [from, to) that w handles and keeps the rest
// for the windows after it.
func (t *textSpans) add(w *window, from, to int64) *Finding {
	if from >= to {
		return nil
	}
	if fe := t.found(searchSpan(w, from, to)); fe != nil {
		return fe
	}
	if to > w.limit {
		t.pending = append(t.pending, [2]int64{max(from, w.limit), to})
	}
	return nil
}

// search searches the part of the spans kept from earlier windows that w
// handles, and forgets those that end in it.
func (t *textSpans) search(w *window) *Finding {
	kept := t.pending[:0]
	for _, s := range t.pending {
		if fe := t.found(searchSpan(w, s[0], s[1])); fe != nil {
			return fe
		}
		if s[1] > w.limit {
			kept = append(kept, [2]int64{max(s[0], w.limit), s[1]})
		}
	}
	t.pending = kept
	return nil
}

// found is fe, or nil once noted in hit when the spans note markers.
func (t *textSpans) found(fe *Finding) *Finding {
	if fe != nil && t.note {
		t.hit = true
		return nil
	}
	return fe
}

// searchSpan searches the offsets of [from, to) that w handles.
func searchSpan(w *window, from, to int64) *Finding {
	from, to = max(from, w.from), min(to, w.limit)
	if from >= to {
		return nil
	}
	if m := markerIn(w.buf, w.index(from), w.index(to)); m != "" {
		return polyglot(m)
	}
	return nil
}

// searchStream searches the text that read gives, block by block, in
// buf: a marker cut by a block's end is found whole with the next. It
// stops at read's first error and returns it (io.EOF: the text ended).
func searchStream(buf []byte, read func([]byte) (int, error)) (string, error) {
	return searchStreamWith(buf, read, markerIn)
}

// searchStreamWith is searchStream finding markers with find (markerIn,
// or pixelMarkerIn for pixels).
func searchStreamWith(buf []byte, read func([]byte) (int, error), find func(buf []byte, i, lim int) string) (string, error) {
	keep := 2*len(longestMarker) - 2 // carried to the next block: a wide marker but its last byte
	n := 0
	for {
		k, err := read(buf[n:])
		n += k
		lim := n - keep
		if err != nil {
			lim = n
		}
		if lim > 0 {
			if m := find(buf[:n], 0, lim); m != "" {
				return m, nil
			}
			n = copy(buf, buf[lim:n])
		}
		if err != nil {
			return "", err
		}
	}
}

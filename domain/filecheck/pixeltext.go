package filecheck

import "bytes"

// Pixels stored as they are (a TIFF strip that is not compressed or is
// PackBits, a stored deflate block of a PNG's IDAT or a deflated strip)
// are searched too (contract §10, issue 32), but not for every marker
// as text is. Pixel bytes spell the short ones by chance: a dark photo's
// RGB bytes are mostly printable ASCII, and one such 2.7 MB TIFF of
// Debian's gnome-backgrounds spells "<?=" 837 times, "<?PHP" once. So
// in pixels a marker counts only as what a reader would take for one:
// "<?php" followed by white space (as PHP requires of its tag), an HTML
// tag's name followed by white space, '>' or '/' (or the end of the
// bytes), and "<!doctype html"; "<?=" and markers in UTF-16 are not
// looked for there. What is not pixels (metadata, text, private chunks)
// is searched for every marker.

// pixelMarkerIn is markerIn for pixels: the first marker that starts in
// buf[i:lim] and is followed as a reader needs it to be.
func pixelMarkerIn(buf []byte, i, lim int) string {
	for i < lim {
		j := bytes.IndexByte(buf[i:lim], '<')
		if j < 0 {
			break
		}
		rest := buf[i+j:]
		if m := activeMarkerAt(rest); m != "" && rest[1] != 0 && m != "<?=" && delimited(rest, m) {
			return m
		}
		i += j + 1
	}
	return ""
}

// delimited reports whether marker m, at the start of rest, is followed
// as PHP or HTML needs: by white space (and, for an HTML tag, '>' or
// '/'), or by nothing.
func delimited(rest []byte, m string) bool {
	if m == longestMarker || len(rest) == len(m) {
		return true
	}
	switch c := rest[len(m)]; {
	case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		return true
	case c == '\f' || c == '>' || c == '/':
		return m != "<?php"
	}
	return false
}

package filecheck

import (
	"fmt"
	"testing"
)

// iccLengthPDF is a page with an uncompressed ICC profile stream whose
// /Length is the reference 5 0 R (pdfcpu and others write lengths so),
// the definitions of 5 that defs writes (before: ahead of the stream),
// and then an image whose DCT data spells /JS, as compressed data does
// about once in 2^27 bytes.
func iccLengthPDF(data string, before bool, defs ...string) []byte {
	w := newPDFWriter("1.7")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
	w.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ] /Resources << /ColorSpace << /CS0 [ /ICCBased 4 0 R ] >> /XObject << /Im0 6 0 R >> >> >>")
	length := func() {
		for _, d := range defs {
			w.obj(5, d)
		}
	}
	if before {
		length()
	}
	w.offsets[4] = w.b.Len()
	fmt.Fprintf(&w.b, "4 0 obj\n<< /N 3 /Alternate /DeviceRGB /Length 5 0 R >>\nstream\n%s\nendstream\nendobj\n", data)
	if !before {
		length()
	}
	w.stream(6, " /Type /XObject /Subtype /Image /Width 1 /Height 1 /BitsPerComponent 8 /ColorSpace /DeviceGray /Filter /DCTDecode",
		[]byte("\xFF\xD8\xFF\xDB\x00\x43\x00 x/JS \x8a\x01 \xFF\xD9"))
	w.xref(" /Root 1 0 R")
	return w.bytes()
}

// TestRawObjectStreamLengthFollowed: an uncompressed stream with /N (an
// ICC profile's) is read as an object stream, and a viewer reads its data
// by /Length. A /Length written as a reference made every name after the
// stream count as the object stream's, to the end of the file, so a later
// image whose compressed bytes spelled /JS refused a real document (left
// open by the nineteenth session's second review). The reference is
// followed now: a length known to end within the data read lets the file
// pass; one that may be longer, or cannot be known, refuses it as before.
func TestRawObjectStreamLengthFollowed(t *testing.T) {
	const icc = "\x00\x00\x02\x30ADBE\x02\x10\x00\x00mntrRGB XYZ \x07\xCF\x00\x06acspAPPL"
	n := fmt.Sprint(len(icc))
	long := fmt.Sprint(len(icc) + 40)
	for _, c := range []struct {
		name   string
		data   string
		before bool
		defs   []string
		want   Kind
	}{
		{"the length after the stream, the data's own", icc, false, []string{n}, accepted},
		{"the length after the stream, shorter than the data", icc, false, []string{"10"}, accepted},
		{"no /JS after: a length longer than the data", icc, false, []string{long}, accepted},
		{"the length longer than the data", icc, false, []string{long}, ActiveContent},
		{"two definitions, one longer", icc, false, []string{n, long}, ActiveContent},
		{"the length defined before the stream", icc, true, []string{n}, ActiveContent},
		{"the length a reference", icc, false, []string{"7 0 R"}, ActiveContent},
		{"the length a real number", icc, false, []string{n + ".5"}, ActiveContent},
		{"no definition of the length", icc, false, nil, ActiveContent},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := iccLengthPDF(c.data, c.before, c.defs...)
			if c.name == "no /JS after: a length longer than the data" {
				p = []byte(string(p))
				p = replaceOnce(t, p, "x/JS", "x/JT")
			}
			if got := fileKind(t, p, testLimits()); got != c.want {
				t.Fatalf("got %q, want %q", got, c.want)
			}
		})
	}
	// The length's number held in an object stream (where a reader with
	// the cross-reference stream takes it from), with a short definition
	// at the top level: the length cannot be known here.
	x := newXrefPDF()
	x.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	x.obj(2, "<< /Type /Pages /Kids [] /Count 0 >>")
	x.stream(4, " /N 3 /Length 5 0 R", []byte(icc))
	x.obj(5, n)
	x.objStm(7, " /Filter /FlateDecode", []member{{num: 5, body: long}}, deflate)
	x.stream(6, " /Subtype /Image /Filter /DCTDecode /Length 10", []byte("\xFF\xD8 x/JS \x8a "))
	if got := fileKind(t, x.finish(8, " /Root 1 0 R"), testLimits()); got != ActiveContent {
		t.Fatalf("the length in an object stream: got %q, want %q", got, ActiveContent)
	}
	// The same file with a direct length passes, and with no length held
	// the /JS in the image's data does not count: the control.
	w := newPDFWriter("1.7")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.stream(4, " /N 3", []byte(icc))
	w.stream(6, " /Subtype /Image /Filter /DCTDecode", []byte("\xFF\xD8 x/JS \x8a \xFF\xD9"))
	w.xref(" /Root 1 0 R")
	if got := fileKind(t, w.bytes(), testLimits()); got != accepted {
		t.Fatalf("the control: got %q", got)
	}
}

func replaceOnce(t *testing.T, p []byte, old, new string) []byte {
	t.Helper()
	s := string(p)
	for i := 0; i+len(old) <= len(s); i++ {
		if s[i:i+len(old)] == old {
			return []byte(s[:i] + new + s[i+len(old):])
		}
	}
	t.Fatalf("%q not in the file", old)
	return nil
}

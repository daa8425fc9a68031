package filecheck

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// objStmAfter is a PDF whose objects sit in a Flate object stream (the
// catalog's /OpenAction runs action), its keyword stream followed by sep
// instead of an end of line, with a cross-reference stream that points
// at every object where it now is.
func objStmAfter(sep, action string) []byte {
	p := newXrefPDF()
	p.objStm(5, " /Filter /FlateDecode", scriptMembers(action), deflate)
	b := p.finish(20, " /Root 1 0 R")
	i := bytes.Index(b, []byte("/Type /ObjStm"))
	j := i + bytes.Index(b[i:], []byte(">>\nstream\n")) + len(">>")
	out := append(append(bytes.Clone(b[:j]), "\nstream"+sep...), b[j+len("\nstream\n"):]...)
	return shiftXref(out, len(sep)-1, j)
}

// shiftXref moves by d the offsets past at in the cross-reference stream
// that xrefPDF.finish writes (rows of W [1 4 2]), and startxref.
func shiftXref(b []byte, d, at int) []byte {
	k := bytes.LastIndex(b, []byte("startxref\n"))
	var sx int
	fmt.Sscanf(string(b[k+len("startxref\n"):]), "%d", &sx)
	sx += d
	rows := sx + bytes.Index(b[sx:], []byte("stream\n")) + len("stream\n")
	for r := rows; r+7 <= k && b[r] <= 2; r += 7 {
		if off := int(b[r+1])<<24 | int(b[r+2])<<16 | int(b[r+3])<<8 | int(b[r+4]); b[r] == 1 && off > at {
			off += d
			b[r+1], b[r+2], b[r+3], b[r+4] = byte(off>>24), byte(off>>16), byte(off>>8), byte(off)
		}
	}
	return append(b[:k], fmt.Sprintf("startxref\n%d\n%%%%EOF\n", sx)...)
}

// TestPDFStreamPlacement (issue 32, finding 2): an object stream whose
// keyword stream is followed by something else than white space holding
// an end of line is refused, its script or not: pdf.js reads its data
// from the next line, MuPDF from the byte after the keyword, and the
// check cannot place it for both. pdf.js reads the script of the
// "stream%" file, MuPDF that of "stream/", as the attacker said.
func TestPDFStreamPlacement(t *testing.T) {
	goTo := "<< /S /GoTo /D [ 2 0 R /Fit ] >>"
	for _, sep := range []string{"%\n", "%comment\n", "%", "/\n", "/", "/x\n", " %x\n", " ", "(x)\n", "<<>>\n", "[\n"} {
		t.Run(fmt.Sprintf("%q", sep), func(t *testing.T) {
			for _, action := range []string{jsAction, goTo} {
				if code := fileKind(t, objStmAfter(sep, action), testLimits()); code != ActiveContent {
					t.Fatalf("%s: got %q, want %s", action, code, ActiveContent)
				}
			}
		})
	}
	for sep, reader := range map[string]string{"%\n": "pdf.js", "%": "MuPDF", "/": "MuPDF"} {
		t.Run(fmt.Sprintf("%q, as %s reads it", sep, reader), func(t *testing.T) {
			got := readersFind(t, objStmAfter(sep, jsAction))
			if who := readersThatFind(got, "script"); !strings.Contains(strings.Join(who, " "), reader) {
				t.Fatalf("the script is read by %v, not %s: %v", who, reader, got)
			}
		})
	}
	// Where every reader places the data, it is read as before.
	for _, sep := range []string{"\n", "\r\n", "\r", " \n", "  \r\n", "\t\n"} {
		t.Run(fmt.Sprintf("%q placed", sep), func(t *testing.T) {
			if code := fileKind(t, objStmAfter(sep, jsAction), testLimits()); code != ActiveContent {
				t.Fatalf("the script: got %q, want %s", code, ActiveContent)
			}
			if code := fileKind(t, objStmAfter(sep, goTo), testLimits()); code != accepted {
				t.Fatalf("no script: refused with %s", code)
			}
		})
	}
}

// TestPDFStreamPlacementElsewhere: what is not an object stream's is not
// refused for where its data starts: an outline item's title that spells
// "stream" before a delimiter (its /First is an object stream's key too),
// a content stream behind "stream%" (read as text: its names count). An
// object stream whose data does not inflate is refused; a stream that is
// one only by an outline's /First is not.
func TestPDFStreamPlacementElsewhere(t *testing.T) {
	for name, c := range map[string]struct {
		pdf  []byte
		want Kind
	}{
		"outline title":             {onePagePDF("", "<< /First 5 0 R /Last 5 0 R /Title (Data stream) /Count 1 >>", "<< /Title (upstream/stream) /Parent 4 0 R >>"), accepted},
		"content stream behind %":   {pdfWithStream("", []byte("BT (Hola) Tj ET")), accepted},
		"a name after stream%":      {[]byte("%PDF-1.4\n1 0 obj\n<< /Length 12 >>stream%\n/JS (x)\nendstream\nendobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"), ActiveContent},
		"object stream not deflate": {pdfWithStream(" /Type /ObjStm /N 1 /First 4 /Filter /FlateDecode", []byte("1 0 << /Type /Page >> not deflate")), ActiveContent},
		"/First alone, not deflate": {pdfWithStream(" /First 4 0 R /Filter /FlateDecode", []byte("not deflate at all")), accepted},
	} {
		t.Run(name, func(t *testing.T) {
			pdf := c.pdf
			if name == "content stream behind %" {
				pdf = bytes.Replace(pdf, []byte(">>\nstream\r\n"), []byte(">>\nstream%\r\n"), 1)
			}
			if code := fileKind(t, pdf, testLimits()); code != c.want {
				t.Fatalf("got %q, want %q", code, c.want)
			}
		})
	}
}

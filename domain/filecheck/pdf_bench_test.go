package filecheck

import (
	"encoding/base64"
	"fmt"
	"testing"
)

// flatePDF is a PDF of about size bytes of FlateDecode content streams,
// as office suites write text-heavy pages: every stream's deflate blocks
// are walked for stored ones (pdf_text.go).
func flatePDF(size int) []byte {
	w := newPDFWriter("1.7")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [] /Count 0 >>")
	page := make([]byte, 0, 64<<10)
	for i := 0; len(page) < 60<<10; i++ {
		page = fmt.Appendf(page, "BT /F1 10 Tf 72 %d Td (Cl\\341usula %d: el deudor pagar\\341 %d cuotas) Tj ET\n", 720-i%700, i, i*7%97)
	}
	for n := 3; w.b.Len() < size; n++ {
		w.stream(n, " /Filter /FlateDecode", deflate(append(fmt.Appendf(nil, "%% page %d\n", n), page...)))
	}
	w.xref(" /Root 1 0 R")
	return w.bytes()
}

// BenchmarkFileInspectFlatePDF2M: a 2 MB PDF of compressed content
// streams, whose deflate blocks are walked.
func BenchmarkFileInspectFlatePDF2M(b *testing.B) {
	benchInspect(b, base64.StdEncoding.EncodeToString(flatePDF(2<<20)))
}

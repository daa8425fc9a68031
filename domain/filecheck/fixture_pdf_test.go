package filecheck

import (
	"bytes"
	"compress/zlib"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
)

// PDFs shaped as producers write them, built in Go so that each test
// shows what it feeds the checks.

// pdfWriter lays a PDF out as producers do: a header with a binary
// comment line, numbered objects, cross-reference sections with real
// offsets, trailers, startxref and %%EOF; update appends an incremental
// update (new objects, a section with /Prev, another %%EOF).
type pdfWriter struct {
	b       bytes.Buffer
	offsets map[int]int // objects written since the last xref section
	prev    int         // the offset of the last xref section
	size    int
}

func newPDFWriter(version string) *pdfWriter {
	w := &pdfWriter{offsets: map[int]int{}}
	w.b.WriteString("%PDF-" + version + "\n%\xE2\xE3\xCF\xD3\n")
	return w
}

func (w *pdfWriter) obj(n int, body string) {
	w.offsets[n] = w.b.Len()
	w.size = max(w.size, n+1)
	fmt.Fprintf(&w.b, "%d 0 obj\n%s\nendobj\n", n, body)
}

func (w *pdfWriter) stream(n int, dict string, data []byte) {
	w.offsets[n] = w.b.Len()
	w.size = max(w.size, n+1)
	fmt.Fprintf(&w.b, "%d 0 obj\n<<%s /Length %d>>\nstream\r\n", n, dict, len(data))
	w.b.Write(data)
	w.b.WriteString("\r\nendstream\nendobj\n")
}

// xref writes a cross-reference section of the objects since the last
// one, its trailer (trailer holds its entries but /Size and /Prev) and
// %%EOF.
func (w *pdfWriter) xref(trailer string) {
	at := w.b.Len()
	nums := make([]int, 0, len(w.offsets))
	for n := range w.offsets {
		nums = append(nums, n)
	}
	sort.Ints(nums)
	w.b.WriteString("xref\n")
	if w.prev == 0 {
		w.b.WriteString("0 1\n0000000000 65535 f\r\n")
	}
	for _, n := range nums {
		fmt.Fprintf(&w.b, "%d 1\n%010d 00000 n\r\n", n, w.offsets[n])
	}
	prev := ""
	if w.prev != 0 {
		prev = fmt.Sprintf(" /Prev %d", w.prev)
	}
	fmt.Fprintf(&w.b, "trailer\n<<%s /Size %d%s>>\nstartxref\n%d\n%%%%EOF\n", trailer, w.size, prev, at)
	w.prev, w.offsets = at, map[int]int{}
}

func (w *pdfWriter) bytes() []byte { return bytes.Clone(w.b.Bytes()) }

func deflate(data []byte) []byte {
	var b bytes.Buffer
	zw := zlib.NewWriter(&b)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// xmpPacket is the metadata stream Acrobat and Word write.
const xmpPacket = `<?xpacket begin="` + "\uFEFF" + `" id="W5M0MpCehiHzreSzNTczkc9d"?>
<x:xmpmeta xmlns:x="adobe:ns:meta/" x:xmptk="Adobe XMP Core 5.6-c017 91.164464, 2020/06/15-10:20:05">
 <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#">
  <rdf:Description rdf:about=""
    xmlns:xmp="http://ns.adobe.com/xap/1.0/"
    xmlns:dc="http://purl.org/dc/elements/1.1/"
    xmlns:pdf="http://ns.adobe.com/pdf/1.3/"
    xmlns:xmpMM="http://ns.adobe.com/xap/1.0/mm/">
   <xmp:CreateDate>2026-11-20T10:15:02-05:00</xmp:CreateDate>
   <xmp:CreatorTool>Microsoft® Word para Microsoft 365</xmp:CreatorTool>
   <dc:format>application/pdf</dc:format>
   <dc:title><rdf:Alt><rdf:li xml:lang="x-default">Pagaré CR-1</rdf:li></rdf:Alt></dc:title>
   <pdf:Producer>Microsoft® Word para Microsoft 365</pdf:Producer>
   <xmpMM:DocumentID>uuid:3F2A6C1E-7B1D-4C57-9F0A-2B6E1D9C8A11</xmpMM:DocumentID>
   <xmpMM:DerivedFrom rdf:parseType="Resource"><stRef:filePath>/Users/JS/Documents/pagare.docx</stRef:filePath></xmpMM:DerivedFrom>
  </rdf:Description>
 </rdf:RDF>
</x:xmpmeta>
` + `                                                                                                    
<?xpacket end="w"?>`

// scannedPDF is a one-page PDF as a scanner or Word writes it: catalog
// with XMP metadata, a page whose compressed content stream draws a JPEG
// image, an Info dictionary and a trailer with /ID.
func scannedPDF(imageSide int) *pdfWriter {
	w := newPDFWriter("1.7")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R /Metadata 6 0 R /Lang (es-CO) /MarkInfo << /Marked true >> >>")
	w.obj(2, "<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
	w.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 612 792 ] /Resources << /XObject << /Im0 5 0 R >> /ProcSet [ /PDF /ImageC ] >> /Contents 4 0 R /Group << /Type /Group /S /Transparency /CS /DeviceRGB >> >>")
	w.stream(4, " /Filter /FlateDecode", deflate([]byte("q\n612 0 0 792 0 0 cm\n/Im0 Do\nQ\nBT /F1 9 Tf 36 20 Td (Pagar\\351 \\(copia\\)) Tj ET\n")))
	w.stream(5, " /Type /XObject /Subtype /Image /Width 64 /Height 48 /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode", noiseJPEG(imageSide, imageSide, 7))
	w.stream(6, " /Type /Metadata /Subtype /XML", []byte(xmpPacket))
	w.obj(7, "<< /Producer (Microsoft\\256 Word para Microsoft 365) /Creator (Microsoft\\256 Word) /CreationDate (D:20261120101502-05'00') /Title (Pagar\\351 CR-1) >>")
	w.xref(" /Root 1 0 R /Info 7 0 R /ID [ <3F2A6C1E7B1D4C579F0A2B6E1D9C8A11> <3F2A6C1E7B1D4C579F0A2B6E1D9C8A11> ]")
	return w
}

// objStmPDF is a PDF 1.5 whose objects sit in a compressed object stream
// and whose cross-reference is a stream, as Acrobat and qpdf write them;
// extra is added to the objects inside the object stream.
func objStmPDF(extra string) []byte {
	w := newPDFWriter("1.5")
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R" + extra + " >>",
		"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ] /Contents 4 0 R >>",
	}
	var head, body strings.Builder
	for i, o := range objs {
		fmt.Fprintf(&head, "%d %d ", i+1, body.Len())
		body.WriteString(o + "\n")
	}
	w.stream(4, " /Filter /FlateDecode", deflate([]byte("BT /F1 12 Tf 72 720 Td (Hola) Tj ET")))
	w.stream(5, fmt.Sprintf(" /Type /ObjStm /N %d /First %d /Filter /FlateDecode", len(objs), head.Len()), deflate([]byte(head.String()+body.String())))
	xrefData := make([]byte, 0, 7*5)
	for i := range 7 {
		xrefData = append(xrefData, 2, 0, byte(i), 0, 0) // predictor row: type 2 = in an object stream
	}
	w.stream(6, " /Type /XRef /Size 7 /W [ 1 2 1 ] /Root 1 0 R /Filter /FlateDecode /DecodeParms << /Columns 4 /Predictor 12 >>", deflate(xrefData))
	fmt.Fprintf(&w.b, "startxref\n%d\n%%%%EOF\n", w.offsets[6])
	return w.bytes()
}

// linearizedPDF has the shape of a linearized ("fast web view") PDF: the
// linearization dictionary first, a first-page cross-reference section
// and trailer with its own %%EOF, a hint stream, then the rest and the
// main cross-reference section with the last %%EOF.
func linearizedPDF() []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.6\n%\xE2\xE3\xCF\xD3\n")
	b.WriteString("8 0 obj\n<< /Linearized 1 /L 2718 /H [ 560 150 ] /O 10 /E 1976 /N 1 /T 2436 >>\nendobj\n")
	b.WriteString("xref\n8 6\n0000000016 00000 n\r\n0000000110 00000 n\r\n0000000200 00000 n\r\n0000000300 00000 n\r\n0000000400 00000 n\r\n0000000560 00000 n\r\n")
	b.WriteString("trailer\n<< /Size 14 /Root 9 0 R /Info 7 0 R /ID [ <0A1B> <0A1B> ] /Prev 2426 >>\nstartxref\n0\n%%EOF\n")
	hint := make([]byte, 150)
	for i := range hint {
		hint[i] = byte(i * 37)
	}
	fmt.Fprintf(&b, "13 0 obj\n<< /S 36 /Filter /FlateDecode /Length %d >>\nstream\r\n", len(deflate(hint)))
	b.Write(deflate(hint))
	b.WriteString("\r\nendstream\nendobj\n")
	b.WriteString("9 0 obj\n<< /Type /Catalog /Pages 6 0 R /OpenAction [ 10 0 R /FitH 842 ] /PageMode /UseNone >>\nendobj\n")
	b.WriteString("10 0 obj\n<< /Type /Page /Parent 6 0 R /MediaBox [ 0 0 595 842 ] /Contents 11 0 R >>\nendobj\n")
	b.WriteString("11 0 obj\n<< /Length 44 >>\nstream\nBT /F1 12 Tf 72 720 Td (Primera p\\341gina) Tj ET\nendstream\nendobj\n")
	b.WriteString("6 0 obj\n<< /Type /Pages /Kids [ 10 0 R ] /Count 1 >>\nendobj\n")
	b.WriteString("7 0 obj\n<< /Producer (Adobe PDF Library 15.0) >>\nendobj\n")
	b.WriteString("xref\n0 8\n0000000000 65535 f\r\n0000000000 65535 f\r\n0000000000 65535 f\r\n0000000000 65535 f\r\n0000000000 65535 f\r\n0000000000 65535 f\r\n0000000900 00000 n\r\n0000000960 00000 n\r\n")
	b.WriteString("trailer\n<< /Size 8 >>\nstartxref\n110\n%%EOF\n")
	return b.Bytes()
}

// onePagePDF is a small well-formed PDF whose catalog carries extra.
func onePagePDF(extra string, more ...string) []byte {
	w := newPDFWriter("1.4")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R"+extra+" >>")
	w.obj(2, "<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
	w.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ] >>")
	for i, m := range more {
		w.obj(4+i, m)
	}
	w.xref(" /Root 1 0 R")
	return w.bytes()
}

// pdfWithStream is a PDF with one more stream object.
func pdfWithStream(dict string, data []byte) []byte {
	w := newPDFWriter("1.5")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R >>")
	w.obj(2, "<< /Type /Pages /Kids [] /Count 0 >>")
	w.stream(3, dict, data)
	w.xref(" /Root 1 0 R")
	return w.bytes()
}

func randomBytes(n int, seed uint64) []byte {
	r := rand.New(rand.NewPCG(seed, 3))
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	return b
}

// outlinedPDF has bookmarks (whose dictionaries say /First, as object
// streams do) followed by a compressed font program; junk goes between
// two objects.
func outlinedPDF(junk string) []byte {
	w := newPDFWriter("1.6")
	w.obj(1, "<< /Type /Catalog /Pages 2 0 R /Outlines 4 0 R /PageMode /UseOutlines >>")
	w.obj(2, "<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>")
	w.obj(3, "<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ] /Resources << /Font << /F1 7 0 R >> >> >>")
	w.obj(4, "<< /Type /Outlines /First 5 0 R /Last 5 0 R /Count 1 >>")
	w.b.WriteString(junk)
	w.obj(5, "<< /Title (Cl\\341usulas \\(anexo\\)) /Parent 4 0 R /Dest [ 3 0 R /Fit ] /First 6 0 R /Last 6 0 R /Count 1 >>")
	w.obj(6, "<< /Title (Firmas) /Parent 5 0 R /Dest [ 3 0 R /XYZ 0 400 0 ] >>")
	w.obj(7, "<< /Type /Font /Subtype /TrueType /BaseFont /ABCDEF+Calibri /FontDescriptor 8 0 R >>")
	w.obj(8, "<< /Type /FontDescriptor /FontName /ABCDEF+Calibri /Flags 32 /FontFile2 9 0 R >>")
	w.stream(9, " /Length1 60000 /Filter /FlateDecode", deflate(randomBytes(60000, 11)))
	w.xref(" /Root 1 0 R")
	return w.bytes()
}

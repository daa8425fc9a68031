package filecheck

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"testing"
)

// benchPDF is a plain PDF of about size bytes, like test/fixture.PDF
// (which this package's internal tests cannot import).
func benchPDF(size int) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n")
	b.WriteString("2 0 obj << /Type /Pages /Kids [] /Count 0 >> endobj\n")
	for i := 0; b.Len() < size-40; i++ {
		fmt.Fprintf(&b, "%% padding line %08d for a scanned document\n", i)
	}
	b.WriteString("trailer << /Root 1 0 R >>\n%%EOF\n")
	return b.Bytes()
}

// wrap76 breaks base64 text into CRLF-terminated lines of 76, as MIME
// encoders (and .NET's InsertLineBreaks) do.
func wrap76(s string) string {
	var b bytes.Buffer
	for i := 0; i < len(s); i += 76 {
		b.WriteString(s[i:min(i+76, len(s))])
		b.WriteString("\r\n")
	}
	return b.String()
}

// fileOnly hides any ReaderFrom of its writer, as a plain file would.
type fileOnly struct{ n int64 }

func (w *fileOnly) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

func benchInspect(b *testing.B, b64 string) {
	rules := testLimits()
	b.SetBytes(int64(len(b64)))
	b.ReportAllocs()
	for b.Loop() {
		if _, fe := Inspect(b64, rules); fe != nil {
			b.Fatal(fe.Detail)
		}
	}
}

// BenchmarkFileInspect200K: the checks of a 200 KB PDF sent as one line.
func BenchmarkFileInspect200K(b *testing.B) {
	benchInspect(b, base64.StdEncoding.EncodeToString(benchPDF(200<<10)))
}

// BenchmarkFileInspect200KWrapped: the same, in MIME lines of 76.
func BenchmarkFileInspect200KWrapped(b *testing.B) {
	benchInspect(b, wrap76(base64.StdEncoding.EncodeToString(benchPDF(200<<10))))
}

// BenchmarkFileWrite200K: the second decode, into a writer that is only a
// writer (as the upload store's temp file is to io.CopyBuffer).
func BenchmarkFileWrite200K(b *testing.B) {
	f, fe := Inspect(base64.StdEncoding.EncodeToString(benchPDF(200<<10)), testLimits())
	if fe != nil {
		b.Fatal(fe.Detail)
	}
	buf := make([]byte, 32<<10) // the upload store's copy buffer
	b.SetBytes(f.Size)
	b.ReportAllocs()
	for b.Loop() {
		var w fileOnly
		if _, err := io.CopyBuffer(&w, f.Reader(), buf); err != nil || w.n != f.Size {
			b.Fatal(err, w.n)
		}
	}
}

// BenchmarkFileInspect20M: the largest file allowed; B/op shows that its
// decoded bytes are never held.
func BenchmarkFileInspect20M(b *testing.B) {
	benchInspect(b, base64.StdEncoding.EncodeToString(benchPDF(20<<20-128)))
}

// BenchmarkFileInspectScannedPDF200K: a PDF of 200 KB as scanners write
// them, mostly a JPEG (binary data, where names and keywords are rare).
func BenchmarkFileInspectScannedPDF200K(b *testing.B) {
	benchInspect(b, base64.StdEncoding.EncodeToString(scannedPDF(466).bytes()))
}

// BenchmarkFileInspectJPEG200K: a JPEG of 200 KB, its segments walked and
// its entropy-coded data searched for the end marker.
func BenchmarkFileInspectJPEG200K(b *testing.B) {
	benchInspect(b, base64.StdEncoding.EncodeToString(noiseJPEG(460, 460, 1)))
}

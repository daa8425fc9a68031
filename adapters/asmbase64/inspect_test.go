package asmbase64_test

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/lender/disbursementd/adapters/asmbase64"
	"github.com/lender/disbursementd/domain/filecheck"
	"github.com/lender/disbursementd/test/fixture"
)

// wrap breaks text into lines of width characters ended by eol.
func wrap(text string, width int, eol string) string {
	var b strings.Builder
	for len(text) > width {
		b.WriteString(text[:width] + eol)
		text = text[width:]
	}
	b.WriteString(text)
	return b.String()
}

// TestInspectWithDecode: the file check gives a file the same size, type,
// SHA-256 and bytes with Decode as with the standard library's decoder
// (every file is decoded again when it is read or written), and refuses
// the same texts, with and without line breaks.
func TestInspectWithDecode(t *testing.T) {
	t.Parallel()
	limits := filecheck.Limits{Allowed: filecheck.Names(), MaxBytes: 20 << 20, MaxImagePixels: 100_000_000}
	fast := limits
	fast.Decode = asmbase64.Decode
	for _, size := range []int{300, 200 << 10, 3 << 20} {
		data := fixture.PDF(size)
		text := base64.StdEncoding.EncodeToString(data)
		half := len(text) / 2
		for name, s := range map[string]string{
			"plain":            text,
			"76 columns, CRLF": wrap(text, 76, "\r\n"),
			"64 columns, LF":   wrap(text, 64, "\n"),
			"not base64":       text[:half] + "*" + text[half:],
		} {
			t.Run(fmt.Sprintf("%d bytes, %s", size, name), func(t *testing.T) {
				want, wantFinding := filecheck.Inspect(s, limits)
				got, gotFinding := filecheck.Inspect(s, fast)
				if (wantFinding == nil) != (gotFinding == nil) {
					t.Fatalf("the standard library's decoder: %v; Decode: %v", wantFinding, gotFinding)
				}
				if want == nil {
					if name != "not base64" {
						t.Fatalf("refused: %v", wantFinding)
					}
					return
				}
				if got.Size != want.Size || got.Ext != want.Ext || got.SHA256 != want.SHA256 || got.Size != int64(len(data)) {
					t.Fatalf("with Decode %d bytes, %s, %x; want %d, %s, %x", got.Size, got.Ext, got.SHA256, want.Size, want.Ext, want.SHA256)
				}
				back, err := io.ReadAll(got.Reader())
				if err != nil || !bytes.Equal(back, data) {
					t.Fatalf("read back with Decode: %d bytes, %v; want the file's %d", len(back), err, len(data))
				}
				var w bytes.Buffer
				if _, err := got.WriteTo(&w); err != nil || !bytes.Equal(w.Bytes(), data) {
					t.Fatalf("written with Decode: %d bytes, %v; want the file's %d", w.Len(), err, len(data))
				}
			})
		}
	}
}

// BenchmarkInspect200K is the file check of W2's file (a 200 KB PDF)
// with the standard library's decoder and with Decode.
func BenchmarkInspect200K(b *testing.B) {
	text := base64.StdEncoding.EncodeToString(fixture.PDF(200 << 10))
	for _, d := range []struct {
		name   string
		decode filecheck.Decoder
	}{{"stdlib", nil}, {"asm", asmbase64.Decode}} {
		b.Run(d.name, func(b *testing.B) {
			limits := filecheck.Limits{Allowed: filecheck.Names(), MaxBytes: 20 << 20, MaxImagePixels: 100_000_000, Decode: d.decode}
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				if _, f := filecheck.Inspect(text, limits); f != nil {
					b.Fatal(f)
				}
			}
		})
	}
}

package pdforacle

import (
	"bytes"
	"fmt"
	"testing"
)

// simplePDF is a one-page PDF whose catalog carries extra, with a
// correct cross-reference table.
func simplePDF(extra string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	objs := []string{
		"<< /Type /Catalog /Pages 2 0 R" + extra + " >>",
		"<< /Type /Pages /Kids [ 3 0 R ] /Count 1 >>",
		"<< /Type /Page /Parent 2 0 R /MediaBox [ 0 0 595 842 ] >>",
	}
	var offs []int
	for i, o := range objs {
		offs = append(offs, b.Len())
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	at := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f\r\n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n\r\n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, at)
	return b.Bytes()
}

// TestReadersRead: each reader reads a file written here and finds the
// script in it, finds nothing in the same file without it, and answers
// an error for bytes that are no PDF; a reader that cannot run fails
// under CI=true and skips otherwise.
func TestReadersRead(t *testing.T) {
	for _, r := range Readers() {
		t.Run(r.Name, func(t *testing.T) {
			NeedReader(t, r)
			found, err := r.Find(simplePDF(" /OpenAction << /S /JavaScript /JS (app.alert\\(1\\)) >>"))
			if err != nil || len(found) == 0 {
				t.Fatalf("a script open action: %v, %v", found, err)
			}
			found, err = r.Find(simplePDF(" /OpenAction [ 3 0 R /Fit ]"))
			if err != nil || len(found) != 0 {
				t.Fatalf("no script: %v, %v", found, err)
			}
			if found, err := r.Find([]byte("not a pdf")); err == nil && len(found) > 0 {
				t.Fatalf("bytes that are no PDF: %v", found)
			}
		})
	}
}

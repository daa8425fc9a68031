package domain

import (
	"bytes"
	"crypto/sha256"
	"errors"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain/filecheck"
)

// testRules are file rules for this package's internal tests, which
// cannot import test/fixture (it imports domain): every known type,
// 20 MiB, 100,000,000 pixels, no PDF scripts.
func testRules(tb testing.TB) FileRules {
	tb.Helper()
	r, err := NewFileRules(FileTypes(), 20<<20, 100_000_000, false)
	if err != nil {
		tb.Fatal(err)
	}
	return r
}

// testPDF is a small PDF the checks accept.
var testPDF = []byte("%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n")

// TestNewFileRulesRefuses: the rules have no default of their own; a
// zero bound, an empty type list or a name that is not a known type's is
// refused, so that the service cannot run on rules it did not choose.
func TestNewFileRulesRefuses(t *testing.T) {
	for _, tt := range []struct {
		name              string
		allowed           []string
		maxBytes, maxPixs int64
		want              string
	}{
		{"no type", nil, 1000, 1000, "no allowed type"},
		{"unknown type", []string{"pdf", "gif"}, 1000, 1000, `"gif"`},
		{"an alias, not a name", []string{"jpeg"}, 1000, 1000, `"jpeg"`},
		{"a name in capitals", []string{"PDF"}, 1000, 1000, `"PDF"`},
		{"zero size", []string{"pdf"}, 0, 1000, "maximum file size 0"},
		{"negative size", []string{"pdf"}, -1, 1000, "maximum file size -1"},
		{"zero pixels", []string{"pdf"}, 1000, 0, "maximum image pixels 0"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := NewFileRules(tt.allowed, tt.maxBytes, tt.maxPixs, false)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("got %v, want an error naming %s", err, tt.want)
			}
		})
	}
	allowed := []string{"pdf", "png"}
	r, err := NewFileRules(allowed, 1000, 2000, true)
	if err != nil {
		t.Fatal(err)
	}
	allowed[0] = "tif" // the caller's slice is not the rules'
	if !slices.Equal(r.Allowed(), []string{"pdf", "png"}) || r.MaxBytes() != 1000 || r.MaxImagePixels() != 2000 || !r.AllowPDFScripts() {
		t.Fatalf("rules %v %d %d %v", r.Allowed(), r.MaxBytes(), r.MaxImagePixels(), r.AllowPDFScripts())
	}
}

// TestZeroFileRulesAdmitNothing: rules not made by NewFileRules refuse
// every file instead of falling back on a default.
func TestZeroFileRulesAdmitNothing(t *testing.T) {
	if _, err := NewFileFromBytes(testPDF, FileRules{}); err == nil {
		t.Fatal("the zero FileRules accepted a PDF")
	}
	if _, err := NewFileFromBytes(testPDF, testRules(t)); err != nil {
		t.Fatalf("the test rules refuse the PDF: %v", err)
	}
}

// TestFileCodes: every finding of the checks has a problem code of its
// own, and NewFileFromBytes gives it with its error kind.
func TestFileCodes(t *testing.T) {
	seen := map[string]filecheck.Kind{}
	for _, k := range filecheck.Kinds() {
		code, ok := fileCodes[k]
		if !ok || code == "" {
			t.Errorf("finding %s has no problem code", k)
		}
		if other, dup := seen[code]; dup {
			t.Errorf("findings %s and %s share the code %s", k, other, code)
		}
		seen[code] = k
	}
	small, err := NewFileRules([]string{"pdf", "png"}, 100, 100, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		data []byte
		kind error
		code string
	}{
		{nil, ErrInvalidInput, CodeInvalidFile},
		{[]byte("GIF89a"), ErrInvalidInput, CodeFileType},
		{append(bytes.Clone(testPDF), make([]byte, 100)...), ErrTooLarge, CodeFileTooLarge},
		{[]byte("%PDF-1.4\n"), ErrInvalidInput, CodeFileTruncated},
	} {
		_, err := NewFileFromBytes(tt.data, small)
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, tt.kind) || e.Code != tt.code || e.Message == "" {
			t.Errorf("%.10q: %v, want %v %s", tt.data, err, tt.kind, tt.code)
		}
	}
}

// TestFileReadsItsContent: a File gives back exactly the bytes checked,
// by Reader and by WriteTo, with their size, hash and type.
func TestFileReadsItsContent(t *testing.T) {
	f, err := NewFileFromBytes(testPDF, testRules(t))
	if err != nil {
		t.Fatal(err)
	}
	if f.Size != int64(len(testPDF)) || f.SHA256 != sha256.Sum256(testPDF) || f.Ext != "pdf" || f.ContentType != "application/pdf" {
		t.Fatalf("file %+v", f)
	}
	var w bytes.Buffer
	if n, err := f.WriteTo(&w); err != nil || n != f.Size || !bytes.Equal(w.Bytes(), testPDF) {
		t.Fatalf("WriteTo: %d, %v", n, err)
	}
	if got, err := io.ReadAll(f.Reader()); err != nil || !bytes.Equal(got, testPDF) {
		t.Fatalf("Reader: %q, %v", got, err)
	}
}

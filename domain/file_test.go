package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
)

// fileCode checks data as a report's file would be checked and returns
// the problem's code, or "" when the file is accepted; an accepted file
// must give back exactly data, by WriteTo and by Read.
func fileCode(t *testing.T, data []byte, rules FileRules) string {
	t.Helper()
	code := ""
	f, err := NewFileFromBytes(data, rules)
	if err != nil {
		var e *Error
		if !errors.As(err, &e) || e.Code == "" || e.Message == "" {
			t.Fatalf("error %v is not an *Error with a code and a message", err)
		}
		t.Logf("%s: %s", e.Code, e.Message)
		code = e.Code
	} else {
		checkContent(t, f, data)
	}
	// Blocks of 111 bytes put a boundary inside every name, keyword and
	// header: the outcome must not change.
	if len(data) > 0 {
		_, fe := inspectIn(base64.StdEncoding.EncodeToString(data), rules, 111)
		if small := codeOf(fe); small != code {
			t.Fatalf("in blocks of 111 bytes: %q, in blocks of %d: %q", small, decodedChunk, code)
		}
	}
	return code
}

func codeOf(fe *fieldErr) string {
	if fe == nil {
		return ""
	}
	return fe.code
}

func checkContent(t *testing.T, f *File, data []byte) {
	t.Helper()
	if f.Size != int64(len(data)) || f.SHA256 != sha256.Sum256(data) {
		t.Fatalf("Size %d, SHA-256 %x; want %d, %x", f.Size, f.SHA256, len(data), sha256.Sum256(data))
	}
	var b bytes.Buffer
	if n, err := f.WriteTo(&b); err != nil || n != int64(len(data)) || !bytes.Equal(b.Bytes(), data) {
		t.Fatalf("WriteTo: %d bytes, %v; content equal: %v", n, err, bytes.Equal(b.Bytes(), data))
	}
	if got, err := io.ReadAll(iotest.HalfReader(f.Reader())); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Read: %d bytes, %v", len(got), err)
	}
}

// TestReaderIsWriterTo: io.Copy and io.CopyBuffer, as the upload store
// calls them, take the WriteTo path; a writer's error comes back.
func TestReaderIsWriterTo(t *testing.T) {
	pdf := benchPDF(300 << 10)
	f, err := NewFileFromBytes(pdf, DefaultFileRules())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := f.Reader().(io.WriterTo); !ok {
		t.Fatal("Reader is not an io.WriterTo")
	}
	var w fileOnly
	if n, err := io.CopyBuffer(&w, f.Reader(), make([]byte, 100)); err != nil || n != int64(len(pdf)) || w.n != n {
		t.Fatalf("CopyBuffer: %d, %v", n, err)
	}
	boom := errors.New("disk full")
	if _, err := f.WriteTo(&failAfter{n: decodedChunk + 5, err: boom}); !errors.Is(err, boom) {
		t.Fatalf("WriteTo into a failing writer: %v", err)
	}
	// A Reader read from, then copied: nothing lost, nothing twice.
	r := f.Reader()
	head := make([]byte, 1000)
	if _, err := io.ReadFull(r, head); err != nil {
		t.Fatal(err)
	}
	var rest bytes.Buffer
	if _, err := io.Copy(&rest, r); err != nil || !bytes.Equal(append(head, rest.Bytes()...), pdf) {
		t.Fatalf("Read then Copy: %v", err)
	}
}

type failAfter struct {
	n   int
	err error
}

func (w *failAfter) Write(p []byte) (int, error) {
	if len(p) > w.n {
		return w.n, w.err
	}
	w.n -= len(p)
	return len(p), nil
}

// TestLargeFileNotHeld: checking and writing the largest file allowed
// allocates a small fraction of it: its decoded bytes are never held.
func TestLargeFileNotHeld(t *testing.T) {
	if testing.Short() {
		t.Skip("20 MiB")
	}
	text := base64.StdEncoding.EncodeToString(benchPDF(20<<20 - 128))
	var before, after runtimeMem
	before.read()
	f, fe := inspect(text, DefaultFileRules())
	if fe != nil {
		t.Fatal(fe.msg)
	}
	var w fileOnly
	if _, err := f.WriteTo(&w); err != nil || w.n != f.Size {
		t.Fatal(err)
	}
	after.read()
	if alloc := after.alloc - before.alloc; alloc > 1<<20 {
		t.Fatalf("checking and writing %d bytes allocated %d bytes", f.Size, alloc)
	}
}

func TestNewFileFromBytes(t *testing.T) {
	pdf := benchPDF(900)
	if code := fileCode(t, pdf, DefaultFileRules()); code != "" {
		t.Fatalf("PDF refused with %s", code)
	}
	f, err := NewFileFromBytes(pdf, DefaultFileRules())
	if err != nil || f.Ext != "pdf" || f.ContentType != "application/pdf" {
		t.Fatalf("PDF: %+v, %v", f, err)
	}
	for _, tt := range []struct {
		data []byte
		kind error
		code string
	}{
		{nil, ErrInvalidInput, CodeInvalidFile},
		{[]byte("GIF89a"), ErrInvalidInput, CodeFileType},
		{benchPDF(2000), ErrTooLarge, CodeFileTooLarge},
	} {
		_, err := NewFileFromBytes(tt.data, FileRules{Allowed: []string{"pdf", "png"}, MaxBytes: 1000})
		var e *Error
		if !errors.As(err, &e) || !errors.Is(err, tt.kind) || e.Code != tt.code {
			t.Errorf("%.10q: %v, want %v %s", tt.data, err, tt.kind, tt.code)
		}
	}
}

type runtimeMem struct{ alloc uint64 }

func (m *runtimeMem) read() {
	var s runtime.MemStats
	runtime.ReadMemStats(&s)
	m.alloc = s.TotalAlloc
}

// TestActiveMarkerAt: the markers match in any case, as bytes.EqualFold
// matched them, and nothing else does.
func TestActiveMarkerAt(t *testing.T) {
	for _, m := range activeMarkers {
		for _, s := range []string{m, strings.ToUpper(m), m + " x"} {
			if got := activeMarkerAt([]byte(s)); got != m {
				t.Errorf("%q: got %q", s, got)
			}
		}
		if got := activeMarkerAt([]byte(m[:len(m)-1])); got != "" && got != "<?=" {
			t.Errorf("%q: got %q", m[:len(m)-1], got)
		}
	}
	for _, s := range []string{"<", "<scrip", "<ſcript", "<\xC5\xBFvg", "<sv", "<x:xmpmeta", "<?xpacket", "<rdf:RDF"} {
		if got := activeMarkerAt([]byte(s)); got != "" {
			t.Errorf("%q: got %q", s, got)
		}
	}
}

package filecheck

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

// testLimits are the limits the tests run under: every known type,
// 20 MiB, 100,000,000 pixels, no PDF scripts (the contract's defaults,
// as config holds them; nothing here depends on their being equal), and
// the standard library's decoder (the service's, asmbase64, is held to
// it by that package's tests). No file keeps its decoded bytes: every
// check that reads a file again decodes it again.
func testLimits() Limits {
	return Limits{Allowed: Names(), MaxBytes: 20 << 20, MaxImagePixels: 100_000_000}
}

// accepted is the Kind of no finding: the file is accepted.
const accepted Kind = 0

// fileKind checks data as a report's file would be checked and returns
// the finding's Kind, or accepted; a finding must have a Kind and a
// Detail, and an accepted file must give back exactly data, by WriteTo
// and by Read.
func fileKind(t *testing.T, data []byte, rules Limits) Kind {
	t.Helper()
	c, fe := Inspect(base64.StdEncoding.EncodeToString(data), rules)
	code := kindOf(fe)
	switch {
	case fe != nil && (fe.Kind == accepted || fe.Detail == "" || c != nil):
		t.Fatalf("finding %+v without a kind or a detail, or with content", fe)
	case fe != nil:
		t.Logf("%s: %s", fe.Kind, fe.Detail)
	case c == nil:
		t.Fatal("neither content nor finding")
	default:
		checkContent(t, c, data)
	}
	// Blocks of 111 bytes put a boundary inside every name, keyword and
	// header: the outcome must not change.
	if len(data) > 0 {
		_, fe := inspectIn(base64.StdEncoding.EncodeToString(data), rules, 111, &work{})
		if small := kindOf(fe); small != code {
			t.Fatalf("in blocks of 111 bytes: %q, in blocks of %d: %q", small, decodedChunk, code)
		}
	}
	return code
}

func kindOf(fe *Finding) Kind {
	if fe == nil {
		return accepted
	}
	return fe.Kind
}

func checkContent(t *testing.T, f *Content, data []byte) {
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
	f, fe := Inspect(base64.StdEncoding.EncodeToString(pdf), testLimits())
	if fe != nil {
		t.Fatal(fe.Detail)
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
	// A Reader read from, then copied (WriteTo carries on in Read's
	// scratch: with bytes of its block left, and at the block's end):
	// nothing lost, nothing twice, the scratch given back once.
	for _, n := range []int{1000, decodedChunk} {
		r := f.Reader()
		head := make([]byte, n)
		if _, err := io.ReadFull(r, head); err != nil {
			t.Fatal(err)
		}
		var rest bytes.Buffer
		if _, err := io.Copy(&rest, r); err != nil || !bytes.Equal(append(head, rest.Bytes()...), pdf) {
			t.Fatalf("Read %d bytes then Copy: %v", n, err)
		}
		if fr := r.(*fileReader); fr.sc != nil || len(fr.left) != 0 {
			t.Fatalf("Read %d bytes then Copy: the reader still holds its scratch", n)
		}
		if k, err := r.Read(head); k != 0 || err != io.EOF {
			t.Fatalf("Read after Copy: %d, %v; want 0, EOF", k, err)
		}
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
	f, fe := Inspect(text, testLimits())
	if fe != nil {
		t.Fatal(fe.Detail)
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

// TestInspect: a file is typed by its content; an empty, unknown or
// oversized one is refused with the Kind that says so.
func TestInspect(t *testing.T) {
	pdf := benchPDF(900)
	if code := fileKind(t, pdf, testLimits()); code != accepted {
		t.Fatalf("PDF refused with %s", code)
	}
	f, fe := Inspect(base64.StdEncoding.EncodeToString(pdf), testLimits())
	if fe != nil || f.Ext != "pdf" || f.ContentType != "application/pdf" {
		t.Fatalf("PDF: %+v, %+v", f, fe)
	}
	for _, tt := range []struct {
		data []byte
		code Kind
	}{
		{nil, Undecodable},
		{[]byte("GIF89a"), TypeRefused},
		{benchPDF(2000), TooLarge},
		{goPNG(4, 3), TypeRefused}, // a known type, not allowed
	} {
		if code := fileKind(t, tt.data, Limits{Allowed: []string{"pdf", "tif"}, MaxBytes: 1000, MaxImagePixels: 100}); code != tt.code {
			t.Errorf("%.10q: %s, want %s", tt.data, code, tt.code)
		}
	}
	// Zero limits admit nothing.
	if code := fileKind(t, pdf, Limits{MaxBytes: 1000}); code != TypeRefused {
		t.Errorf("no allowed type: %s", code)
	}
	if code := fileKind(t, pdf, Limits{Allowed: Names()}); code != TooLarge {
		t.Errorf("a zero size bound: %s", code)
	}
}

// TestTypes: the one list of types, by name and by alias.
func TestTypes(t *testing.T) {
	if got := strings.Join(Names(), ","); got != "pdf,png,jpg,tif" {
		t.Fatalf("Names() = %s", got)
	}
	for ext, want := range map[string]string{
		"pdf": "pdf", ".PDF": "pdf", " jpeg ": "jpg", "JPE": "jpg", "jpg": "jpg", "tiff": "tif", "Tif": "tif", "png": "png",
		"gif": "", "": "", "pdf.": "", "..pdf": "",
	} {
		if got, ok := Canonical(ext); got != want || ok != (want != "") {
			t.Errorf("Canonical(%q) = %q, %v; want %q", ext, got, ok, want)
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

package domain

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"errors"
	"io"
	"math/rand/v2"
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

// TestDecodeAcceptsAsBefore: the base64 rules of contract §3 (standard
// alphabet, optional padding, a data: prefix, whitespace anywhere).
func TestDecodeAcceptsAsBefore(t *testing.T) {
	pdf := benchPDF(3000)
	std := base64.StdEncoding.EncodeToString(pdf[:len(pdf)-1]) // an odd size: the text ends in padding
	if !strings.HasSuffix(std, "=") {
		t.Fatal("fixture must end in padding")
	}
	spaced := func(every int, sep string) string {
		var b strings.Builder
		for i := 0; i < len(std); i += every {
			b.WriteString(std[i:min(i+every, len(std))] + sep)
		}
		return b.String()
	}
	for name, text := range map[string]string{
		"padded":                   std,
		"padding left out":         strings.TrimRight(std, "="),
		"data URL":                 "data:application/pdf;base64," + std,
		"MIME lines of 76, CRLF":   spaced(76, "\r\n"),
		"PEM lines of 64, LF":      spaced(64, "\n"),
		"a space every 3":          spaced(3, " "),
		"tabs and CRs every 5":     spaced(5, "\t\r"),
		"whitespace around":        " \r\n\t" + std + " \r\n",
		"whitespace in padding":    strings.TrimRight(std, "=") + " =\r\n=",
		"one char per line, CRLF":  spaced(1, "\r\n"),
		"whitespace runs over 100": spaced(50, strings.Repeat(" ", 101)),
	} {
		t.Run(name, func(t *testing.T) {
			f, fe := inspect(text, DefaultFileRules())
			if fe != nil {
				t.Fatalf("%s: %s", fe.code, fe.msg)
			}
			checkContent(t, f, pdf[:len(pdf)-1])
		})
	}
}

func TestDecodeRefuses(t *testing.T) {
	good := base64.StdEncoding.EncodeToString(benchPDF(300))
	for name, text := range map[string]string{
		"empty":                 "",
		"only whitespace":       " \r\n\t",
		"only padding":          "====",
		"not base64":            "!!!!",
		"padding in the middle": good[:8] + "==" + good[8:],
		"URL alphabet":          strings.NewReplacer("+", "-", "/", "_").Replace(good) + "-_-_",
		"one char too many":     strings.TrimRight(good, "=") + "A===",
		"data: without base64":  "data:application/pdf," + good,
		"NUL inside":            good[:40] + "\x00" + good[40:],
	} {
		t.Run(name, func(t *testing.T) {
			if _, fe := inspect(text, DefaultFileRules()); fe == nil || fe.code != CodeInvalidFile {
				t.Fatalf("got %+v, want %s", fe, CodeInvalidFile)
			}
		})
	}
}

// TestDecodeSizeBeforeDecoding: the limit is decided by counting, before
// any decoding (a text over it is refused as too large even when it is
// not base64), and whitespace does not count.
func TestDecodeSizeBeforeDecoding(t *testing.T) {
	rules := FileRules{Allowed: []string{"pdf"}, MaxBytes: 3000}
	pdf := benchPDF(3000)[:3000]
	copy(pdf[len(pdf)-6:], "%%EOF\n")
	text := base64.StdEncoding.EncodeToString(pdf)
	if _, fe := inspect(strings.ReplaceAll(text, "A", "A\r\n"), rules); fe != nil {
		t.Fatalf("a file of exactly the limit, wrapped: %s", fe.msg)
	}
	if _, fe := inspect(text+"!!!!", rules); fe == nil || fe.code != CodeFileTooLarge {
		t.Fatalf("over the limit and invalid: %+v, want %s", fe, CodeFileTooLarge)
	}
}

// TestDecoderBlocks: the block decoder gives the bytes of the standard
// decoder for sizes around block boundaries and whitespace of every
// kind, read by blocks and by Read.
func TestDecoderBlocks(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	tmp := make([]byte, encodedChunk)
	for _, size := range []int{1, 2, 3, 4, 5, decodedChunk - 1, decodedChunk, decodedChunk + 1, decodedChunk + 2, 2*decodedChunk - 2, 3*decodedChunk + 1} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		text := strings.TrimRight(base64.StdEncoding.EncodeToString(data), "=")
		for _, ws := range []string{"", "\n", "\r\n", " ", "\t", "  \r\n\t"} {
			var b strings.Builder
			for i := 0; i < len(text); {
				n := 1 + r.IntN(100)
				b.WriteString(text[i:min(i+n, len(text))])
				if ws != "" && r.IntN(2) == 0 {
					b.WriteString(ws)
				}
				i += n
			}
			var got []byte
			d := b64Decoder{src: b.String()}
			for {
				out := make([]byte, decodedChunk)
				n, err := d.read(out, tmp)
				if err == io.EOF {
					break
				}
				if err != nil {
					t.Fatalf("size %d, whitespace %q: %v", size, ws, err)
				}
				got = append(got, out[:n]...)
			}
			if !bytes.Equal(got, data) {
				t.Fatalf("size %d, whitespace %q: blocks decode to %d bytes, not the %d sent", size, ws, len(got), size)
			}
			if all, err := io.ReadAll(&fileReader{d: b64Decoder{src: b.String()}}); err != nil || !bytes.Equal(all, data) {
				t.Fatalf("size %d, whitespace %q: Read gives %d bytes, %v", size, ws, len(all), err)
			}
		}
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

package filecheck

import (
	"bytes"
	"encoding/base64"
	"io"
	"math/rand/v2"
	"strings"
	"testing"
)

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
			f, fe := Inspect(text, testLimits())
			if fe != nil {
				t.Fatalf("%s: %s", fe.Kind, fe.Detail)
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
			if _, fe := Inspect(text, testLimits()); fe == nil || fe.Kind != Undecodable {
				t.Fatalf("got %+v, want %s", fe, Undecodable)
			}
		})
	}
}

// TestDecodeSizeBeforeDecoding: the limit is decided by counting, before
// any decoding (a text over it is refused as too large even when it is
// not base64), and whitespace does not count.
func TestDecodeSizeBeforeDecoding(t *testing.T) {
	rules := Limits{Allowed: []string{"pdf"}, MaxBytes: 3000}
	pdf := benchPDF(3000)[:3000]
	copy(pdf[len(pdf)-6:], "%%EOF\n")
	text := base64.StdEncoding.EncodeToString(pdf)
	if _, fe := Inspect(strings.ReplaceAll(text, "A", "A\r\n"), rules); fe != nil {
		t.Fatalf("a file of exactly the limit, wrapped: %s", fe.Detail)
	}
	if _, fe := Inspect(text+"!!!!", rules); fe == nil || fe.Kind != TooLarge {
		t.Fatalf("over the limit and invalid: %+v, want %s", fe, TooLarge)
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

// TestReaderTakesItsBlockFromThePool: a reader that reads a file to the
// end through Read (as the S3 store does) takes its block's buffers from
// the pool and gives them back, instead of allocating 224 KiB a reader:
// one allocation a read (the reader itself), not three.
func TestReaderTakesItsBlockFromThePool(t *testing.T) {
	data := benchPDF(200 << 10)
	c, fe := Inspect(base64.StdEncoding.EncodeToString(data), testLimits())
	if fe != nil {
		t.Fatal(fe)
	}
	p := make([]byte, 32<<10)
	read := func() {
		r, n := c.Reader(), 0
		for {
			k, err := r.Read(p)
			n += k
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if n != len(data) {
			t.Fatalf("read %d bytes, want %d", n, len(data))
		}
	}
	read() // the pool holds a scratch after this
	if raceDetector {
		t.Skip("under the race detector a pool drops a quarter of what it is given: not asserted")
	}
	if allocs := testing.AllocsPerRun(20, read); allocs >= 2 {
		t.Fatalf("%.1f allocations a read, want 1 (the reader)", allocs)
	}
}

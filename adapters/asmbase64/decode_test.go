package asmbase64_test

import (
	"bytes"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lender/disbursementd/adapters/asmbase64"
)

// decodeBoth decodes src with the standard library and with Decode into
// buffers of its decoded size, and fails when they disagree: on whether
// src is base64, or on the count and bytes when it is.
func decodeBoth(t *testing.T, src []byte) {
	t.Helper()
	size := base64.RawStdEncoding.DecodedLen(len(src))
	want, got := make([]byte, size), make([]byte, size)
	wn, werr := base64.RawStdEncoding.Decode(want, src)
	gn, gerr := asmbase64.Decode(got, src)
	switch {
	case (werr == nil) != (gerr == nil):
		t.Fatalf("%q: the standard library says %v, Decode %v", clip(src), werr, gerr)
	case werr == nil && (wn != gn || !bytes.Equal(want[:wn], got[:gn])):
		t.Fatalf("%q: the standard library decoded %d bytes, Decode %d, or other bytes", clip(src), wn, gn)
	}
}

// clip is src, or its first 300 bytes, for a failure's message.
func clip(src []byte) []byte { return src[:min(len(src), 300)] }

// random returns n bytes that are the same in every run, so that a
// failure can be had again.
func random(n int) []byte {
	r := rand.NewChaCha8([32]byte{'a', 's', 'm'})
	b := make([]byte, n)
	_, _ = r.Read(b)
	return b
}

// seeds are texts on both sides of the vector loop's bounds (it needs 45
// characters and takes 32 at a time), with CR/LF, a character outside the
// alphabet, padding and non-zero trailing bits at the start, in the loop
// and in the tail.
func seeds() [][]byte {
	text := base64.RawStdEncoding.EncodeToString(random(300))
	var out [][]byte
	for _, n := range []int{0, 1, 2, 3, 4, 43, 44, 45, 46, 47, 76, 77, 78, 109, 110, 400} {
		s := text[:n]
		out = append(out, []byte(s))
		for _, at := range []int{0, n / 2, max(n-1, 0), max(n-13, 0), max(n-32, 0)} {
			for _, mark := range []string{"\n", "\r\n", "=", "*", " ", "\x00", "\xff", "-", "_"} {
				out = append(out, []byte(s[:at]+mark+s[at:]))
			}
		}
	}
	// The last character carries bits past the data (non-zero trailing
	// bits): the standard library's non-strict decoder takes them.
	out = append(out, []byte(text[:45]+"B"), []byte(text[:46]+"B"), []byte(text[:110]+"Q"))
	out = append(out, []byte(strings.Repeat("\n", 64)+text[:64]), []byte(strings.Repeat("A/+9", 40)))
	return out
}

func TestDecodeAsTheStandardLibrary(t *testing.T) {
	t.Parallel()
	for _, s := range seeds() {
		decodeBoth(t, s)
	}
	decodeBoth(t, []byte(base64.RawStdEncoding.EncodeToString(random(1<<20))))
}

// TestDecodeShortDst: a dst shorter than the decoded size of src goes
// to the standard library. Text with many line breaks decodes to less
// than its length says, and the vector loop, which looks at the source's
// length only, would store past the decoded bytes (64 characters and 60
// LFs into a dst of the 48 bytes they make: the second block's store ends
// at byte 56); nothing past dst may change.
func TestDecodeShortDst(t *testing.T) {
	t.Parallel()
	raw := random(48)
	src := []byte(base64.RawStdEncoding.EncodeToString(raw) + strings.Repeat("\n", 60))
	buf := bytes.Repeat([]byte{0xAA}, 200)
	n, err := asmbase64.Decode(buf[:48], src)
	if err != nil || n != 48 || !bytes.Equal(buf[:48], raw) {
		t.Fatalf("Decode = %d, %v", n, err)
	}
	for i, c := range buf[48:] {
		if c != 0xAA {
			t.Fatalf("Decode wrote past dst's length, at %d", 48+i)
		}
	}
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) { decodeBoth(t, src) })
}

func BenchmarkDecode(b *testing.B) {
	raw := random(96 << 10) // a block of the file check
	src := []byte(base64.RawStdEncoding.EncodeToString(raw))
	dst := make([]byte, len(raw))
	for _, d := range []struct {
		name   string
		decode func(dst, src []byte) (int, error)
	}{{"stdlib", base64.RawStdEncoding.Decode}, {"asm", asmbase64.Decode}} {
		b.Run(d.name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				if n, err := d.decode(dst, src); err != nil || n != len(raw) {
					b.Fatal(n, err)
				}
			}
		})
	}
}

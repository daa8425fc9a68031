package asmbase64_test

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
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
		t.Fatalf("%d characters: the standard library says %v, Decode %v", len(src), werr, gerr)
	case werr == nil && (wn != gn || !bytes.Equal(want[:wn], got[:gn])):
		t.Fatalf("%d characters: the standard library decoded %d bytes, Decode %d, or other bytes", len(src), wn, gn)
	}
}

// seeds are texts on both sides of the vector loop's bounds (it needs 45
// characters and takes 32 at a time), with CR/LF, a character outside the
// alphabet, padding and non-zero trailing bits at the start, in the loop
// and in the tail.
func seeds() [][]byte {
	raw := make([]byte, 300)
	_, _ = rand.Read(raw)
	text := base64.RawStdEncoding.EncodeToString(raw)
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
	raw := make([]byte, 1<<20)
	_, _ = rand.Read(raw)
	decodeBoth(t, []byte(base64.RawStdEncoding.EncodeToString(raw)))
}

// TestDecodeShortDst: a dst shorter than the decoded size goes to the
// standard library, which panics as it would; the vector loop never
// writes past dst.
func TestDecodeShortDst(t *testing.T) {
	t.Parallel()
	raw := make([]byte, 96)
	_, _ = rand.Read(raw)
	src := []byte(base64.RawStdEncoding.EncodeToString(raw)) // 128 characters
	buf := make([]byte, 200)
	for i := range buf {
		buf[i] = 0xAA
	}
	n, err := asmbase64.Decode(buf[:96], src)
	if err != nil || n != 96 || !bytes.Equal(buf[:96], raw) {
		t.Fatalf("Decode = %d, %v", n, err)
	}
	for i, c := range buf[96:] {
		if c != 0xAA {
			t.Fatalf("Decode wrote past dst's length, at %d", 96+i)
		}
	}
	func() {
		defer func() { _ = recover() }()
		_, _ = asmbase64.Decode(buf[:95], src)
		t.Error("a dst one byte short: no panic, want the standard library's")
	}()
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds() {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src []byte) { decodeBoth(t, src) })
}

func BenchmarkDecode(b *testing.B) {
	raw := make([]byte, 96<<10) // a block of the file check
	_, _ = rand.Read(raw)
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

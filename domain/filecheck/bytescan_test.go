package filecheck

import (
	"bytes"
	"math/rand/v2"
	"testing"
)

// TestIndexBelowIsThePlainSearch: the 32- and eight-bytes-at-a-time search finds
// what the byte-at-a-time one finds, for every limit it takes, a byte
// below it at every place of the first words and the tail, and none.
func TestIndexBelowIsThePlainSearch(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for limit := 0; limit <= 0x80; limit++ {
		for n := 0; n <= 72; n++ { // two steps of 32 bytes, words and a tail
			p := make([]byte, n)
			for i := range p { // bytes at and above limit, none below it
				p[i] = byte(limit + rng.IntN(256-limit))
			}
			check(t, p, byte(limit))
			for at := 0; at < n && limit > 0; at++ {
				q := bytes.Clone(p)
				q[at] = byte(rng.IntN(limit))
				check(t, q, byte(limit))
			}
		}
	}
}

func check(t *testing.T, p []byte, limit byte) {
	t.Helper()
	if got, want := IndexBelow(p, limit), indexBelowPlain(p, limit); got != want {
		t.Fatalf("IndexBelow(% x, %#x) = %d, the plain search says %d", p, limit, got, want)
	}
}

// BenchmarkIndexBelow compares the two searches over base64 text with no
// whitespace, the decoder's common case.
func BenchmarkIndexBelow(b *testing.B) {
	text := bytes.Repeat([]byte("QUJDREVGR0hJSktMTU5PUFFSU1RVVldYWVo0MjQy"), 1<<15)
	for _, s := range []struct {
		name string
		f    func([]byte, byte) int
	}{{"words", IndexBelow}, {"plain", indexBelowPlain}} {
		b.Run(s.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				if s.f(text, '!') != len(text) {
					b.Fatal("found whitespace in text without any")
				}
			}
		})
	}
}

package filecheck

import (
	"bufio"
	"bytes"
	"compress/flate"
	"compress/zlib"
	"fmt"
	"io"
	"slices"
	"testing"
)

// splitReader tells compress/flate's two ways of reading apart: it reads
// everything with ReadByte but the LEN, NLEN and bytes of a stored block,
// which it reads with Read (io.ReadFull). Each run of Read calls is one
// stored block.
type splitReader struct {
	r      *bytes.Reader
	reads  [][]byte
	inRead bool
}

func (s *splitReader) ReadByte() (byte, error) { s.inRead = false; return s.r.ReadByte() }

func (s *splitReader) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if !s.inRead {
		s.reads = append(s.reads, nil)
	}
	s.inRead = true
	s.reads[len(s.reads)-1] = append(s.reads[len(s.reads)-1], p[:n]...)
	return n, err
}

// storedByFlate is the plain answer: whether compress/flate inflates the
// zlib stream z whole (its header as zlib checks it), and the bytes of
// its stored blocks.
func storedByFlate(z []byte) (bool, [][]byte) {
	if len(z) < 2 || z[0]&0x0F != 8 || z[0]>>4 > 7 || (uint16(z[0])<<8|uint16(z[1]))%31 != 0 || z[1]&0x20 != 0 {
		return false, nil
	}
	s := &splitReader{r: bytes.NewReader(z[2:])}
	if _, err := io.Copy(io.Discard, flate.NewReader(s)); err != nil {
		return false, nil
	}
	var blocks [][]byte
	for _, r := range s.reads {
		blocks = append(blocks, r[4:])
	}
	return true, blocks
}

// storedByWalk is the walk's answer to the same question.
func storedByWalk(z []byte) (bool, [][]byte) {
	var blocks [][]byte
	d := &deflateWalk{wk: &work{limit: 1 << 62}}
	err := d.walkZlib(bufio.NewReader(bytes.NewReader(z)), func(r io.Reader) error {
		b, err := io.ReadAll(r)
		blocks = append(blocks, b)
		return err
	})
	return err == nil, blocks
}

func compressed(data []byte, level int) []byte {
	var b bytes.Buffer
	w, err := zlib.NewWriterLevel(&b, level)
	if err != nil {
		panic(err)
	}
	for len(data) > 0 { // flushes in the middle make more, and empty, blocks
		k := min(len(data), 70000)
		w.Write(data[:k])
		w.Flush()
		data = data[k:]
	}
	w.Close()
	return b.Bytes()
}

func deflateSeeds() [][]byte {
	text := bytes.Repeat([]byte("<?php echo 1; ?> a scanned page of text, "), 3000)
	noise := randomBytes(200000, 3)
	var seeds [][]byte
	for _, level := range []int{zlib.NoCompression, zlib.HuffmanOnly, zlib.BestSpeed, zlib.DefaultCompression, zlib.BestCompression} {
		for _, data := range [][]byte{nil, []byte("a"), text, noise, make([]byte, 300000), append(bytes.Clone(noise[:5000]), text[:9000]...)} {
			seeds = append(seeds, compressed(data, level))
		}
	}
	return seeds
}

// TestDeflateWalk: the walk finds the same stored blocks as compress/flate
// in streams of every compression level (stored, Huffman only, fixed and
// dynamic codes, flushed midway), and refuses the same streams cut short
// or altered.
func TestDeflateWalk(t *testing.T) {
	t.Parallel()
	for i, z := range deflateSeeds() {
		variants := [][]byte{z, z[:len(z)/2], z[:max(0, len(z)-5)]}
		for _, at := range []int{2, 3, 7, len(z) / 3} {
			if at < len(z) {
				v := bytes.Clone(z)
				v[at] ^= 0x5A
				variants = append(variants, v)
			}
		}
		for j, v := range variants {
			t.Run(fmt.Sprintf("seed%d/variant%d", i, j), func(t *testing.T) { sameAsFlate(t, v) })
		}
	}
}

func sameAsFlate(t *testing.T, z []byte) {
	t.Helper()
	okF, blocksF := storedByFlate(z)
	okW, blocksW := storedByWalk(z)
	if okF != okW {
		t.Fatalf("compress/flate reads it whole: %v; the walk: %v (%d bytes)", okF, okW, len(z))
	}
	if okF && !slices.EqualFunc(blocksF, blocksW, bytes.Equal) {
		t.Fatalf("stored blocks differ: flate %d, walk %d", len(blocksF), len(blocksW))
	}
}

// FuzzDeflateWalk holds the walk to compress/flate on any bytes.
func FuzzDeflateWalk(f *testing.F) {
	for _, z := range deflateSeeds() {
		if len(z) < 4096 {
			f.Add(z)
		}
	}
	f.Add([]byte{0x78, 0x01, 0x01, 0x05, 0x00, 0xFA, 0xFF, '<', '?', 'p', 'h', 'p'})
	f.Fuzz(func(t *testing.T, z []byte) { sameAsFlate(t, z) })
}

// photoRows are rows of bytes that vary as a photo's do, about n of them.
func photoRows(n int) []byte {
	p := randomBytes(n, 21)
	for i := range p {
		p[i] = byte(i/3000) + p[i]%8
	}
	return p
}

// BenchmarkDeflateWalk: the walk of a zlib stream of 8 MB of photo-like
// bytes (Huffman-coded, as a PNG's IDAT is), by its compressed size.
func BenchmarkDeflateWalk(b *testing.B) {
	z := compressed(photoRows(8<<20), zlib.DefaultCompression)
	d := &deflateWalk{wk: &work{limit: 1 << 62}}
	r := bufio.NewReaderSize(nil, 32<<10)
	b.SetBytes(int64(len(z)))
	for b.Loop() {
		r.Reset(bytes.NewReader(z))
		if err := d.walkZlib(r, func(io.Reader) error { return nil }); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDeflateInflate: the same stream inflated by compress/flate,
// the plain way to its stored blocks (storedByFlate), for comparison.
func BenchmarkDeflateInflate(b *testing.B) {
	z := compressed(photoRows(8<<20), zlib.DefaultCompression)
	b.SetBytes(int64(len(z)))
	for b.Loop() {
		if ok, _ := storedByFlate(z); !ok {
			b.Fatal("not inflated")
		}
	}
}

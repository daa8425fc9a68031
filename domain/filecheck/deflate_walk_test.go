package filecheck

import (
	"bytes"
	"compress/flate"
	"compress/zlib"
	"encoding/binary"
	"hash/adler32"
	"io"
	"slices"
	"testing"
)

// spanReader is the walk's reference: compress/flate reads a stored
// block's length and bytes with Read, every other bit with ReadByte, so
// the runs of bytes read with Read are the stored blocks, each after its
// 4 bytes of length.
type spanReader struct {
	data  []byte
	pos   int
	spans [][2]int64
}

func (r *spanReader) ReadByte() (byte, error) {
	if r.pos == len(r.data) {
		return 0, io.EOF
	}
	r.pos++
	return r.data[r.pos-1], nil
}

func (r *spanReader) Read(p []byte) (int, error) {
	if r.pos == len(r.data) {
		return 0, io.EOF
	}
	n := copy(p, r.data[r.pos:])
	if k := len(r.spans); k > 0 && r.spans[k-1][1] == int64(r.pos) {
		r.spans[k-1][1] += int64(n)
	} else {
		r.spans = append(r.spans, [2]int64{int64(r.pos), int64(r.pos + n)})
	}
	r.pos += n
	return n, nil
}

// referenceStored inflates a zlib stream's deflate data with
// compress/flate and returns its stored blocks' bytes as offsets in z,
// and whether it inflated without error.
func referenceStored(z []byte) ([][2]int64, bool) {
	if len(z) < 6 {
		return nil, false
	}
	r := &spanReader{data: z[2 : len(z)-4]}
	_, err := io.Copy(io.Discard, flate.NewReader(r))
	var stored [][2]int64
	for _, s := range r.spans {
		if s[1]-s[0] > 4 {
			stored = append(stored, [2]int64{s[0] + 2 + 4, s[1] + 2})
		}
	}
	return stored, err == nil
}

// walk walks z fed step bytes at a time from offset base.
func walk(z []byte, base int64, step int) (*deflateWalk, [][2]int64) {
	var d deflateWalk
	d.start(base)
	var stored [][2]int64
	note := func(from, to int64) *Finding {
		stored = append(stored, [2]int64{from - base, to - base})
		return nil
	}
	for i := 0; i < len(z) && !d.over(); {
		j := int(d.pos-base) + step
		d.feed(z[d.pos-base:min(j, len(z))], note)
		i = j
	}
	d.end()
	return &d, stored
}

func zlibAt(data []byte, level int) []byte {
	var b bytes.Buffer
	zw, _ := zlib.NewWriterLevel(&b, level)
	zw.Write(data)
	zw.Close()
	return b.Bytes()
}

// storedZlib is a zlib stream of one stored block holding data, then
// rest compressed.
func storedZlib(data, rest []byte) []byte {
	b := []byte{0x78, 0x01, 0x00}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(data)))
	b = binary.LittleEndian.AppendUint16(b, ^uint16(len(data)))
	b = append(b, data...)
	var fb bytes.Buffer
	fw, _ := flate.NewWriter(&fb, 9)
	fw.Write(rest)
	fw.Close()
	b = append(b, fb.Bytes()...)
	return binary.BigEndian.AppendUint32(b, adler32.Checksum(append(bytes.Clone(data), rest...)))
}

// TestDeflateWalk: on what compress/flate writes at every level, and on
// a hand-made stored block, the walk ends where the data ends and finds
// the stored blocks compress/flate reads as they are, fed whole or a
// byte at a time; data zlib refuses or cut short fails it.
func TestDeflateWalk(t *testing.T) {
	text := bytes.Repeat([]byte("BT /F1 12 Tf 72 720 Td (Pagar\\351 CR-1) Tj ET\n"), 2000)
	inputs := map[string][]byte{"empty": nil, "text": text, "random": randomBytes(200<<10, 9), "zeros": make([]byte, 300<<10)}
	cases := map[string][]byte{
		"stored then compressed": storedZlib([]byte("<?php system($_GET[1]); ?>"), text),
		"19 code-length codes":   huffmanSpelling(string(text[:3000])), // 57 bits read at once
	}
	for name, in := range inputs {
		for _, level := range []int{flate.HuffmanOnly, flate.NoCompression, flate.BestSpeed, 6, flate.BestCompression} {
			cases[name+"/"+string(rune('0'+level+2))] = zlibAt(in, level)
		}
	}
	for name, z := range cases {
		want, ok := referenceStored(z)
		if !ok {
			t.Fatalf("%s: compress/flate cannot read its own output", name)
		}
		for _, step := range []int{len(z) + 1, 1, 2, 3, 5, 7, 8, 9, 11, 13, 16, 4096} {
			d, got := walk(z, 1000, step)
			if d.state != walkDone || d.endedAt-1000 != int64(len(z)) {
				t.Fatalf("%s in steps of %d: state %d, ended at %d of %d", name, step, d.state, d.endedAt-1000, len(z))
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s in steps of %d: stored %v, compress/flate reads %v", name, step, got, want)
			}
		}
	}
	good := storedZlib([]byte("<?php"), text)
	for name, z := range map[string][]byte{
		"bad header":        append([]byte{0x78, 0x02}, good[2:]...),
		"preset dictionary": append([]byte{0x78, 0x20 | (31 - (0x7820 % 31))}, good[2:]...),
		"block type 3":      {0x78, 0x01, 0x07, 0, 0, 0},
		"LEN and NLEN":      {0x78, 0x01, 0x01, 5, 0, 5, 0, 'a', 'b', 'c', 'd', 'e'},
		"cut short":         good[:len(good)/2],
		"distance too far":  {0x78, 0x01, 0x03, 0x02, 0x00, 0x00}, // a fixed block: a length at distance 1 before any byte
	} {
		if d, _ := walk(z, 0, 3); d.state != walkFailed {
			t.Errorf("%s: state %d, want failed", name, d.state)
		}
	}
}

// FuzzDeflateWalk: whatever the bytes, the walk does not panic; where
// compress/flate inflates them, it ends where they end and finds the
// stored blocks compress/flate reads, fed in any steps.
func FuzzDeflateWalk(f *testing.F) {
	f.Add(storedZlib([]byte("<?php"), []byte("hola")), uint8(1))
	f.Add(zlibAt([]byte("BT (x) Tj ET"), 9), uint8(3))
	f.Add(zlibAt(randomBytes(1000, 1), flate.HuffmanOnly), uint8(200))
	f.Add(huffmanSpelling("<?= hola"), uint8(255))
	f.Fuzz(func(t *testing.T, z []byte, step uint8) {
		d, got := walk(z, 5, int(step)+1)
		want, ok := referenceStored(z)
		if !ok || !zlibReads(z) {
			return
		}
		if d.state != walkDone || d.endedAt-5 != int64(len(z)) || !slices.Equal(got, want) {
			t.Fatalf("zlib reads it; the walk: state %d, end %d of %d, stored %v, want %v", d.state, d.endedAt-5, len(z), got, want)
		}
	})
}

// zlibReads reports whether compress/zlib reads z whole, checksum
// included, with nothing after it.
func zlibReads(z []byte) bool {
	br := bytes.NewReader(z)
	zr, err := zlib.NewReader(br)
	if err != nil {
		return false
	}
	_, err = io.Copy(io.Discard, zr)
	return err == nil && br.Len() == 0
}

// TestDeflateWalkRefill: whatever is loaded already (up to 56 bits),
// refill loads the input's bytes in order until more than 56 bits are
// loaded or the input is spent (a walk that needs 57 bits at once, a
// dynamic block's 19 code-length code lengths, waited forever when 56
// were loaded and none was added).
func TestDeflateWalkRefill(t *testing.T) {
	in := randomBytes(16, 4)
	for nacc := uint(0); nacc <= 56; nacc++ {
		for n := 0; n <= len(in); n++ {
			d := deflateWalk{acc: 1<<nacc - 1, nacc: nacc, in: in[:n]}
			d.refill()
			if d.nacc <= 56 && d.i < n {
				t.Fatalf("%d bits loaded, %d bytes at hand: %d loaded, %d bytes taken", nacc, n, d.nacc, d.i)
			}
			for k := range d.i {
				if got := byte(d.acc >> (nacc + 8*uint(k))); got != in[k] {
					t.Fatalf("%d bits loaded, %d bytes at hand: byte %d loaded as %#x, is %#x", nacc, n, k, got, in[k])
				}
			}
			if d.acc&(1<<nacc-1) != 1<<nacc-1 || d.nacc != nacc+8*uint(d.i) || d.nacc < 64 && d.acc>>d.nacc != 0 {
				t.Fatalf("%d bits loaded, %d bytes at hand: acc %#x, %d bits", nacc, n, d.acc, d.nacc)
			}
		}
	}
}

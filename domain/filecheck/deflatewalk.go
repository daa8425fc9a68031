package filecheck

import (
	"bufio"
	"errors"
	"io"
)

// The deflate walk (RFC 1951) finds the stored blocks of a zlib stream
// (a PNG's IDAT, a TIFF's deflated strip) without inflating it: it reads
// each block's Huffman codes and their symbols' extra bits, and produces
// nothing. A stored block holds its bytes as they are in the file, so
// they are searched for markers (contract §10), where compressed blocks,
// like every compressed datum, are not. Its work is the compressed
// bytes it reads, never the size they would inflate to: a stream of
// zeros that inflates a thousandfold costs what it weighs. A stream that
// is not valid deflate, as zlib and Go read it, is an error: no reader
// shows that image, and the check cannot say what the stream holds.
//
// The plain way to the same answer is compress/flate behind a reader
// that tells its Read calls (which only stored blocks make) from its
// ReadByte calls; the tests hold the walk to it (deflatewalk_test.go).

var errDeflate = errors.New("not a valid deflate stream")

// What a block counts beyond its bytes: each block its header, a block
// with codes of its own building their tables. A stream flushed at every
// row (some encoders do) stays far within the work bound.
const (
	blockWork = 16
	tableWork = 1 << 10
)

const (
	fastBits = 9 // codes this long or shorter are decoded by one look-up
	maxLen   = 15
)

// huffman is one canonical code: its symbols by code (as puff.c decodes
// them), and a table of the codes of at most fastBits bits.
type huffman struct {
	count  [maxLen + 1]uint16
	symbol [288]uint16
	fast   [1 << fastBits]uint16 // symbol<<4 | length; 0 for a longer code
}

// build makes the code of lengths. Like zlib and Go, it refuses an
// over-subscribed code and an incomplete one, but a single code of one
// bit; with no codes at all it builds a code that decodes nothing.
func (h *huffman) build(lengths []uint8) error {
	*h = huffman{}
	maxL := 0
	for _, l := range lengths {
		h.count[l]++
		maxL = max(maxL, int(l))
	}
	h.count[0] = 0
	left := 1
	for l := 1; l <= maxLen; l++ {
		left = left<<1 - int(h.count[l])
		if left < 0 {
			return errDeflate
		}
	}
	if left > 0 && maxL > 1 {
		return errDeflate
	}
	var offs [maxLen + 2]uint16
	for l := 1; l <= maxLen; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	code, next := 0, [maxLen + 1]int{}
	for l := 1; l <= maxLen; l++ {
		code = (code + int(h.count[l-1])) << 1
		next[l] = code
	}
	for sym, l := range lengths {
		if l == 0 {
			continue
		}
		h.symbol[offs[l]] = uint16(sym)
		offs[l]++
		c := next[l]
		next[l]++
		if l > fastBits {
			continue
		}
		rev := 0 // deflate sends a code's bits from its first
		for i := 0; i < int(l); i++ {
			rev |= (c >> i & 1) << (int(l) - 1 - i)
		}
		for j := rev; j < 1<<fastBits; j += 1 << l {
			h.fast[j] = uint16(sym)<<4 | uint16(l)
		}
	}
	return nil
}

// bitReader reads a deflate stream's bits, the first from a byte's
// lowest bit; it holds at most what one code or field needs.
type bitReader struct {
	r    *bufio.Reader
	b    uint64
	n    uint
	read int64 // bytes taken from r
}

// consumed is how many bytes of the stream the walk has used: those read
// but for the whole bytes still held.
func (s *bitReader) consumed() int64 { return s.read - int64(s.n/8) }

// need makes n bits available; errDeflate when the stream ends first.
func (s *bitReader) need(n uint) error {
	for s.n < n {
		c, err := s.r.ReadByte()
		if err != nil {
			return noEOF(err)
		}
		s.b |= uint64(c) << s.n
		s.n += 8
		s.read++
	}
	return nil
}

// noEOF is err, but the end of the input, which here is a stream cut short.
func noEOF(err error) error {
	if err == io.EOF {
		return errDeflate
	}
	return err
}

func (s *bitReader) take(n uint) (uint32, error) {
	if err := s.need(n); err != nil {
		return 0, err
	}
	v := uint32(s.b & (1<<n - 1))
	s.b >>= n
	s.n -= n
	return v, nil
}

// decode reads one symbol of h: by its table when the code is short,
// else a bit at a time (puff.c's decode).
func (s *bitReader) decode(h *huffman) (int, error) {
	// Near the stream's end fewer bits than fastBits may be left: the
	// bits above s.n are 0, and a code no longer than s.n is still read.
	if err := s.need(fastBits); err != nil && !errors.Is(err, errDeflate) {
		return 0, err
	}
	if e := h.fast[s.b&(1<<fastBits-1)]; e != 0 && uint(e&15) <= s.n {
		s.b >>= e & 15
		s.n -= uint(e & 15)
		return int(e >> 4), nil
	}
	code, first, index := 0, 0, 0
	for l := 1; l <= maxLen; l++ {
		bit, err := s.take(1)
		if err != nil {
			return 0, err
		}
		code |= int(bit)
		count := int(h.count[l])
		if code-count < first {
			return int(h.symbol[index+code-first]), nil
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, errDeflate
}

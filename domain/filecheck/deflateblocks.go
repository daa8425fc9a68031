package filecheck

import (
	"bufio"
	"io"
)

// The lengths and distances of RFC 1951 §3.2.5: base values and extra bits.
var (
	lengthBase  = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lengthExtra = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase    = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra   = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
	clenOrder   = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}
)

// fixedCodes are the codes of blocks of type 1, built once.
var fixedLit, fixedDist = func() (*huffman, *huffman) {
	var l [288]uint8
	for i := range l {
		switch {
		case i < 144:
			l[i] = 8
		case i < 256:
			l[i] = 9
		case i < 280:
			l[i] = 7
		default:
			l[i] = 8
		}
	}
	var d [32]uint8 // 30 and 31 complete the code; a block that uses them is refused (codes)
	for i := range d {
		d[i] = 5
	}
	lit, dist := &huffman{}, &huffman{}
	if lit.build(l[:]) != nil || dist.build(d[:]) != nil {
		panic("deflate: the fixed codes do not build")
	}
	return lit, dist
}()

// deflateWalk is the walk of one zlib stream.
type deflateWalk struct {
	bits      bitReader
	lit, dist huffman // a dynamic block's codes
	clen      huffman
	lengths   [286 + 30]uint8
	out       int64 // bytes the stream inflates to so far, for its distances
	wk        *work
}

// walkZlib reads the zlib stream of r (a 2-byte header, deflate blocks,
// whatever follows the last block is not read) and calls stored with a
// reader of each stored block's bytes, which it must read to their end.
// It returns errDeflate for a stream that is not valid, errWork when the
// work ends it, or stored's error.
func (d *deflateWalk) walkZlib(r *bufio.Reader, stored func(io.Reader) error) error {
	d.bits = bitReader{r: r}
	d.out = 0
	var head [2]byte
	n, err := io.ReadFull(r, head[:])
	d.bits.read = int64(n)
	if err != nil {
		return noEOF(err)
	}
	// RFC 1950: deflate, a window of at most 32 KiB, a valid check, no
	// preset dictionary (which PNG and TIFF never use).
	if head[0]&0x0F != 8 || head[0]>>4 > 7 || (uint16(head[0])<<8|uint16(head[1]))%31 != 0 || head[1]&0x20 != 0 {
		return errDeflate
	}
	for {
		if err := d.wk.err(blockWork); err != nil {
			return err
		}
		h, err := d.bits.take(3)
		if err != nil {
			return err
		}
		switch h >> 1 {
		case 0:
			err = d.storedBlock(stored)
		case 1:
			err = d.codes(fixedLit, fixedDist)
		case 2:
			if err = d.wk.err(tableWork); err != nil {
				return err
			}
			if err = d.dynamic(); err == nil {
				err = d.codes(&d.lit, &d.dist)
			}
		default:
			err = errDeflate
		}
		if err != nil || h&1 == 1 {
			return err
		}
	}
}

// storedBlock reads a stored block's length and hands its bytes to stored.
func (d *deflateWalk) storedBlock(stored func(io.Reader) error) error {
	s := &d.bits
	s.b >>= s.n % 8 // the rest of the byte the header ended in
	s.n -= s.n % 8
	v, err := s.take(16)
	if err != nil {
		return err
	}
	nv, err := s.take(16)
	if err != nil {
		return err
	}
	if uint16(nv) != ^uint16(v) {
		return errDeflate
	}
	// No bit is held now: at the boundary 0 or 8 bits were held, need
	// tops them up to exactly 16, and both 16 were taken.
	n := int64(v)
	r := io.LimitReader(s.r, n)
	if err := stored(r); err != nil {
		return err
	}
	left := r.(*io.LimitedReader).N
	s.read += n - left
	if left > 0 {
		return errDeflate // the stream ended inside the block
	}
	d.out += n
	return nil
}

// dynamic reads a block's own codes (RFC 1951 §3.2.7).
func (d *deflateWalk) dynamic() error {
	s := &d.bits
	h, err := s.take(14)
	if err != nil {
		return err
	}
	nlit, ndist, nclen := int(h&31)+257, int(h>>5&31)+1, int(h>>10)+4
	if nlit > 286 || ndist > 30 {
		return errDeflate
	}
	var cl [19]uint8
	for i := 0; i < nclen; i++ {
		v, err := s.take(3)
		if err != nil {
			return err
		}
		cl[clenOrder[i]] = uint8(v)
	}
	if err := d.clen.build(cl[:]); err != nil {
		return err
	}
	lengths := d.lengths[:nlit+ndist]
	for i := 0; i < len(lengths); {
		sym, err := s.decode(&d.clen)
		if err != nil {
			return err
		}
		if sym < 16 {
			lengths[i] = uint8(sym)
			i++
			continue
		}
		var rep, bits, base = uint8(0), uint(2), 3
		switch sym {
		case 16:
			if i == 0 {
				return errDeflate
			}
			rep = lengths[i-1]
		case 17:
			bits = 3
		default:
			bits, base = 7, 11
		}
		v, err := s.take(bits)
		if err != nil {
			return err
		}
		n := base + int(v)
		if i+n > len(lengths) {
			return errDeflate
		}
		for ; n > 0; n-- {
			lengths[i] = rep
			i++
		}
	}
	if lengths[256] == 0 { // no end of block
		return errDeflate
	}
	if err := d.lit.build(lengths[:nlit]); err != nil {
		return err
	}
	return d.dist.build(lengths[nlit:])
}

// codes reads a block's symbols up to its end of block, checking each
// length and distance, and counts what they would inflate to.
func (d *deflateWalk) codes(lit, dist *huffman) error {
	s := &d.bits
	for {
		sym, err := s.decode(lit)
		if err != nil {
			return err
		}
		switch {
		case sym < 256:
			d.out++
			continue
		case sym == 256:
			return nil
		case sym > 285:
			return errDeflate
		}
		sym -= 257
		extra, err := s.take(uint(lengthExtra[sym]))
		if err != nil {
			return err
		}
		length := int64(lengthBase[sym]) + int64(extra)
		ds, err := s.decode(dist)
		if err != nil {
			return err
		}
		if ds >= 30 {
			return errDeflate
		}
		extra, err = s.take(uint(distExtra[ds]))
		if err != nil {
			return err
		}
		if int64(distBase[ds])+int64(extra) > d.out {
			return errDeflate // before the stream's first byte
		}
		d.out += length
	}
}

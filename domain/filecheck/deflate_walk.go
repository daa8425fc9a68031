package filecheck

import "encoding/binary"

// deflateWalk follows the blocks of a zlib stream (a FlateDecode stream's
// data) as its bytes arrive, without inflating it, to find the stored
// blocks (BTYPE 00): their bytes are in the file as they are, so they are
// searched for active markers like text (contract §10; issue 32 hid
// "<?php" in one). Huffman-coded blocks are decoded symbol by symbol,
// nothing written out, so the walk costs what the compressed bytes cost,
// however far they would inflate.
//
// It is strict where zlib is: a header, a block type, a code or a
// distance zlib refuses stops it, at failedAt, and so does data cut
// before the last block ends; from there on the caller searches the
// bytes as text, as it does the bytes after the stream's end (a check
// that cannot follow the data does not pass it unread).
type deflateWalk struct {
	acc     uint64 // bits loaded, not yet used, the next in the low bit
	nacc    uint
	pos     int64 // the offset of the next byte to load
	state   uint8
	last    bool  // the block being read is the final one
	skip    int64 // stored bytes still to pass over
	out     int64 // bytes the data inflates to so far, for distances
	nlen    int   // dynamic header: code lengths read
	hlit    int
	hdist   int
	hclen   int
	lens    [320]uint8
	lit     *huffman // the block's codes: the fixed ones, or own below
	dist    *huffman
	own     [3]huffman // a dynamic block's literal/length, distance and code-length codes
	endedAt int64      // where the data ended (state walkDone) or the walk failed (walkFailed)
	in      []byte     // the bytes being fed, from i on not yet loaded
	i       int
}

const (
	walkZlib = iota
	walkBlock
	walkStoredLen
	walkStored
	walkDynHeader
	walkCodeLens
	walkSymbols
	walkDone
	walkFailed
)

// start begins a walk of data that starts at offset at.
func (d *deflateWalk) start(at int64) {
	*d = deflateWalk{pos: at, state: walkZlib}
}

// over reports whether the walk has ended or failed (endedAt says where).
func (d *deflateWalk) over() bool { return d.state >= walkDone }

// consumedAt is the offset of the first byte not wholly used.
func (d *deflateWalk) consumedAt() int64 { return d.pos - int64(d.nacc/8) }

func (d *deflateWalk) fail() {
	d.state, d.endedAt = walkFailed, d.consumedAt()
}

// feed walks p, the bytes at offset d.pos on; stored reports each stored
// block's bytes [from, to), which may reach past p.
func (d *deflateWalk) feed(p []byte, stored func(from, to int64) *Finding) *Finding {
	d.in, d.i = p, 0
	defer func() { d.in = nil }()
	for d.state < walkDone {
		if d.state == walkStored {
			for d.skip > 0 && d.nacc >= 8 {
				d.acc >>= 8
				d.nacc -= 8
				d.skip--
			}
			n := int(min(d.skip, int64(len(p)-d.i)))
			d.i += n
			d.pos += int64(n)
			if d.skip -= int64(n); d.skip > 0 {
				return nil
			}
			d.endBlock()
			continue
		}
		d.refill()
		ok, fe := d.step(stored)
		if fe != nil {
			return fe
		}
		switch {
		case ok:
		case d.i == len(p):
			return nil // more bytes are needed
		case d.nacc > 56:
			// No step needs more than 57 bits: a walk that cannot go on
			// with them has lost its way, and fails (the rest is text).
			d.fail()
		}
	}
	return nil
}

// refill loads bytes of the input until more than 56 bits are loaded or
// the input is spent: as many of eight as fit where eight are there, else
// one at a time.
func (d *deflateWalk) refill() {
	if d.nacc <= 55 && d.i+8 <= len(d.in) { // at least a byte fits
		n := (63 - d.nacc) / 8
		d.acc = (d.acc | binary.LittleEndian.Uint64(d.in[d.i:])<<d.nacc) & (1<<(d.nacc+8*n) - 1)
		d.nacc += 8 * n
		d.i += int(n)
		d.pos += int64(n)
	}
	for d.nacc <= 56 && d.i < len(d.in) {
		d.acc |= uint64(d.in[d.i]) << d.nacc
		d.nacc += 8
		d.pos++
		d.i++
	}
}

// end is the end of the stream's data: a walk not over is data cut short.
func (d *deflateWalk) end() {
	if !d.over() {
		d.fail()
	}
}

// bits returns n bits at bit offset at of the loaded ones; ok says they
// are loaded.
func (d *deflateWalk) bits(at, n uint) (uint32, bool) {
	if at+n > d.nacc {
		return 0, false
	}
	return uint32(d.acc>>at) & (1<<n - 1), true
}

func (d *deflateWalk) use(n uint) {
	d.acc >>= n
	d.nacc -= n
}

// endBlock ends a block; after the last, the data ends with the
// checksum, 4 bytes from the next byte boundary.
func (d *deflateWalk) endBlock() {
	if d.last {
		d.use(d.nacc % 8)
		d.state, d.endedAt = walkDone, d.consumedAt()+4
		return
	}
	d.state = walkBlock
}

// step takes one step of the walk; ok is false when it needs more bits.
func (d *deflateWalk) step(stored func(from, to int64) *Finding) (ok bool, fe *Finding) {
	switch d.state {
	case walkZlib:
		h, ok := d.bits(0, 16)
		if !ok {
			return false, nil
		}
		cmf, flg := h&0xFF, h>>8
		if cmf&0x0F != 8 || cmf>>4 > 7 || (cmf<<8|flg)%31 != 0 || flg&0x20 != 0 {
			d.fail()
			return true, nil
		}
		d.use(16)
		d.state = walkBlock
	case walkBlock:
		h, ok := d.bits(0, 3)
		if !ok {
			return false, nil
		}
		d.use(3)
		d.last = h&1 == 1
		switch h >> 1 {
		case 0:
			d.use(d.nacc % 8)
			d.state = walkStoredLen
		case 1:
			d.lit, d.dist = &fixedCodes[0], &fixedCodes[1]
			d.state = walkSymbols
		case 2:
			d.state = walkDynHeader
		default:
			d.fail()
		}
	case walkStoredLen:
		h, ok := d.bits(0, 32)
		if !ok {
			return false, nil
		}
		n, inv := h&0xFFFF, h>>16
		if n != ^inv&0xFFFF {
			d.fail()
			return true, nil
		}
		d.use(32)
		from := d.consumedAt()
		d.skip, d.out = int64(n), d.out+int64(n)
		d.state = walkStored
		if n > 0 {
			return true, stored(from, from+int64(n))
		}
	case walkDynHeader:
		h, ok := d.bits(0, 14)
		if !ok {
			return false, nil
		}
		d.use(14)
		d.hlit, d.hdist, d.hclen = int(h&31)+257, int(h>>5&31)+1, int(h>>10)+4
		if d.hlit > 286 || d.hdist > 30 {
			d.fail()
			return true, nil
		}
		d.state, d.nlen = walkCodeLens, -1
	case walkCodeLens:
		return d.codeLens()
	case walkSymbols:
		return d.symbols()
	}
	return true, nil
}

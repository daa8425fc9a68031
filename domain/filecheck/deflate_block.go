package filecheck

// How deflateWalk reads a Huffman-coded block: a dynamic block's code
// lengths, then the symbols up to the block's end, each length and
// distance checked as zlib checks them.

// clenOrder is the order of the code-length code's lengths.
var clenOrder = [19]uint8{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1, 15}

// codeLens reads a dynamic block's code lengths and builds its codes.
func (d *deflateWalk) codeLens() (bool, *Finding) {
	if d.nlen < 0 {
		if uint(d.hclen*3) > d.nacc {
			return false, nil
		}
		var lens [19]uint8
		for i := range d.hclen {
			lens[clenOrder[i]] = uint8(d.acc >> (3 * i) & 7)
		}
		d.use(uint(d.hclen * 3))
		if !d.own[2].build(lens[:], false) {
			d.fail()
			return true, nil
		}
		d.nlen = 0
	}
	total := d.hlit + d.hdist
	for d.nlen < total {
		sym, n, ok, bad := d.own[2].decode(d.acc, d.nacc)
		if bad {
			d.fail()
			return true, nil
		}
		if !ok {
			return false, nil
		}
		if sym < 16 {
			d.use(n)
			d.lens[d.nlen] = uint8(sym)
			d.nlen++
			continue
		}
		extra, base, val := uint(2), 3, uint8(0)
		switch sym {
		case 16:
			if d.nlen == 0 {
				d.fail()
				return true, nil
			}
			val = d.lens[d.nlen-1]
		case 17:
			extra = 3
		case 18:
			extra, base = 7, 11
		}
		x, ok := d.bits(n, extra)
		if !ok {
			return false, nil
		}
		d.use(n + extra)
		rep := base + int(x)
		if d.nlen+rep > total {
			d.fail()
			return true, nil
		}
		for range rep {
			d.lens[d.nlen] = val
			d.nlen++
		}
	}
	if d.lens[256] == 0 || !d.own[0].build(d.lens[:d.hlit], true) || !d.own[1].build(d.lens[d.hlit:total], true) {
		d.fail()
		return true, nil
	}
	d.lit, d.dist = &d.own[0], &d.own[1]
	d.state = walkSymbols
	return true, nil
}

// The base lengths and distances of deflate's length and distance
// symbols, and their extra bits.
var (
	lenBase   = [29]uint16{3, 4, 5, 6, 7, 8, 9, 10, 11, 13, 15, 17, 19, 23, 27, 31, 35, 43, 51, 59, 67, 83, 99, 115, 131, 163, 195, 227, 258}
	lenExtra  = [29]uint8{0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 3, 4, 4, 4, 4, 5, 5, 5, 5, 0}
	distBase  = [30]uint32{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra = [30]uint8{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// symbols reads a Huffman block's symbols until the block's end or until
// the input is spent, the bits in locals (written back before each
// return) and loaded as it goes.
func (d *deflateWalk) symbols() (bool, *Finding) {
	acc, nacc, out := d.acc, d.nacc, d.out
	lit, dist := d.lit, d.dist
	ok, failed := false, false
	for {
		if nacc < 48 {
			d.acc, d.nacc = acc, nacc
			d.refill()
			acc, nacc = d.acc, d.nacc
		}
		sym, n := 0, uint(0)
		if e := lit.fast[acc&(1<<fastBits-1)]; e != 0 && uint(e&15) <= nacc {
			sym, n = int(e>>4), uint(e&15)
		} else {
			var bad bool
			if sym, n, ok, bad = lit.decode(acc, nacc); bad || !ok {
				failed = bad
				break
			}
		}
		if sym < 256 {
			acc >>= n
			nacc -= n
			out++
			continue
		}
		if sym == 256 {
			acc >>= n
			nacc -= n
			d.acc, d.nacc, d.out = acc, nacc, out
			d.endBlock()
			return true, nil
		}
		if sym > 285 {
			failed = true
			break
		}
		sym -= 257
		at := n + uint(lenExtra[sym])
		if ok = at <= nacc; !ok {
			break
		}
		length := int64(lenBase[sym]) + int64(acc>>n&(1<<lenExtra[sym]-1))
		ds, dn, dok, bad := dist.decode(acc>>at, nacc-at)
		if bad || dok && ds > 29 {
			failed = true
			break
		}
		at += dn
		if ok = dok && at+uint(distExtra[ds]) <= nacc; !ok {
			break
		}
		if int64(distBase[ds])+int64(acc>>at&(1<<distExtra[ds]-1)) > out {
			failed = true // a distance before the data's start
			break
		}
		at += uint(distExtra[ds])
		acc >>= at
		nacc -= at
		out += length
	}
	d.acc, d.nacc, d.out = acc, nacc, out
	if failed {
		d.fail()
		return true, nil
	}
	return false, nil // more bits are needed
}

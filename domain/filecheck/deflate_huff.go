package filecheck

// The Huffman codes of deflate (RFC 1951 §3.2) as deflateWalk decodes
// them: canonical codes from their lengths, a table for codes of up to
// fastBits bits and, for the longer ones, the canonical decoding a bit at
// a time (as zlib's puff does).

const fastBits = 9

type huffman struct {
	count [16]uint16            // codes of each length
	sym   [288]uint16           // symbols in canonical order
	fast  [1 << fastBits]uint16 // by the next fastBits bits: sym<<4 | length, or 0 for a longer code
}

// fixedCodes are the fixed block's literal/length and distance codes.
var fixedCodes = func() (c [2]huffman) {
	var lens [288]uint8
	for i := range lens {
		switch {
		case i < 144:
			lens[i] = 8
		case i < 256:
			lens[i] = 9
		case i < 280:
			lens[i] = 7
		default:
			lens[i] = 8
		}
	}
	c[0].build(lens[:], false)
	var dist [32]uint8
	for i := range dist {
		dist[i] = 5
	}
	c[1].build(dist[:], false)
	return c
}()

// build makes the code of lens; it reports false for lengths zlib
// refuses: an over-subscribed code, or an incomplete one unless
// incomplete is allowed and the code is a single code of one bit (as
// zlib allows for literal/length and distance codes; code-length codes
// must be complete).
func (h *huffman) build(lens []uint8, incomplete bool) bool {
	*h = huffman{}
	for _, l := range lens {
		h.count[l]++
	}
	h.count[0] = 0
	left := 1
	maxLen := 0
	for l := 1; l < 16; l++ {
		left = left<<1 - int(h.count[l])
		if left < 0 {
			return false
		}
		if h.count[l] > 0 {
			maxLen = l
		}
	}
	if left > 0 && !(incomplete && maxLen <= 1) {
		return false
	}
	var offs [16]uint16
	for l := 1; l < 15; l++ {
		offs[l+1] = offs[l] + h.count[l]
	}
	var next [16]uint32 // the next code of each length, first bit highest
	code := uint32(0)
	for l := 1; l < 16; l++ {
		next[l] = code
		code = (code + uint32(h.count[l])) << 1
	}
	for s, l := range lens {
		if l == 0 {
			continue
		}
		h.sym[offs[l]] = uint16(s)
		offs[l]++
		c := next[l]
		next[l]++
		if l <= fastBits {
			rev := uint32(0) // the code as it arrives, first bit lowest
			for b := uint8(0); b < l; b++ {
				rev |= (c >> b & 1) << (l - 1 - b)
			}
			for k := rev; k < 1<<fastBits; k += 1 << l {
				h.fast[k] = uint16(s)<<4 | uint16(l)
			}
		}
	}
	return true
}

// decode reads a symbol from the avail bits of acc (the next in the low
// bit): the symbol and its length; ok is false when more bits are
// needed, bad when the bits are no code.
func (h *huffman) decode(acc uint64, avail uint) (sym int, n uint, ok, bad bool) {
	if e := h.fast[acc&(1<<fastBits-1)]; e != 0 && uint(e&15) <= avail {
		return int(e >> 4), uint(e & 15), true, false
	}
	code, first, index := 0, 0, 0
	for l := uint(1); l < 16; l++ {
		if l > avail {
			return 0, 0, false, false
		}
		code |= int(acc >> (l - 1) & 1)
		count := int(h.count[l])
		if code-count < first {
			return int(h.sym[index+code-first]), l, true, false
		}
		index += count
		first = (first + count) << 1
		code <<= 1
	}
	return 0, 0, false, true
}

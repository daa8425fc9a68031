package filecheck

import "encoding/binary"

// IndexBelow returns the index of the first byte of p below limit, or
// len(p); limit is at most 0x80. It tests 32 bytes a step, so a long
// run without such a byte (a 27 MB base64 text, a JSON string) is crossed
// at memory speed: the base64 decoder looks for whitespace with it, the
// HTTP adapter for control characters in a JSON string. indexBelowPlain
// is the same search a byte at a time; the tests hold one to the other
// and the benchmark beside them compares them.
func IndexBelow(p []byte, limit byte) int {
	const highs = 0x8080808080808080
	ones := uint64(limit) * 0x0101010101010101
	i := 0
	// Four words a step, their tests joined: one branch per 32 bytes.
	for ; i+32 <= len(p); i += 32 {
		q := p[i : i+32 : i+32]
		a, b := binary.LittleEndian.Uint64(q), binary.LittleEndian.Uint64(q[8:])
		c, d := binary.LittleEndian.Uint64(q[16:]), binary.LittleEndian.Uint64(q[24:])
		if ((a-ones)&^a|(b-ones)&^b|(c-ones)&^c|(d-ones)&^d)&highs != 0 {
			break
		}
	}
	for ; i+8 <= len(p); i += 8 {
		// A byte below limit borrows and keeps its high bit clear in x
		// (exact for "some byte is below" when limit <= 0x80).
		if x := binary.LittleEndian.Uint64(p[i:]); (x-ones)&^x&highs != 0 {
			break
		}
	}
	return i + indexBelowPlain(p[i:], limit)
}

// indexBelowPlain is IndexBelow a byte at a time: the plain version, and
// the fast one's last word and tail.
func indexBelowPlain(p []byte, limit byte) int {
	for i, c := range p {
		if c < limit {
			return i
		}
	}
	return len(p)
}

package httpapi

import (
	"errors"
	"io"
)

// readBody reads a body into one buffer, asking cover, before each buffer
// is allocated, to cover a body of its size (byteBudget); when cover says
// no, the read stops with errOverBudget. The buffer doubles as the bytes
// arrive, up to the declared length (length > 0), from the size that
// reaches it exactly (firstBuffer), or else from firstStep up to limit,
// the most bytes r gives: what a body holds and
// reserves follows what has arrived, never what it declares (a client
// that declares 32 MiB and sends 60 KiB holds 128 KiB, not 32 MiB). A
// body that ends before its declared length is io.ErrUnexpectedEOF; one
// of unknown length is given with length < 0.
func readBody(r io.Reader, length, limit int64, cover func(int64) bool) ([]byte, error) {
	if length == 0 {
		return []byte{}, nil // declared empty
	}
	end := limit
	if length > 0 {
		end = min(length, limit)
	}
	first := min(firstStep, end)
	if length > 0 {
		first = firstBuffer(end)
	}
	var buf []byte
	for size := first; ; size = min(2*size, end) {
		if !cover(size) {
			return buf, errOverBudget
		}
		grown := make([]byte, len(buf), size)
		copy(grown, buf)
		buf = grown
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		switch {
		case (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) && length > 0:
			return buf, io.ErrUnexpectedEOF
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return buf, nil
		case err != nil:
			return buf, err
		case size == end:
			return buf, nil // the declared length, or all that r gives
		}
	}
}

// errOverBudget ends the read of a body that the bytes in flight
// (Limits.MaxBytesInFlight) have no room for.
var errOverBudget = errors.New("over the bytes in flight")

// firstStep is the largest first buffer of a body, whatever length it
// declares.
const firstStep = 64 << 10

// firstBuffer is the first buffer of a body that declares end bytes: end
// halved (rounded up) until it is at most firstStep. Doubling from it
// reaches end with no step past it: a 270 KB body is read through 34, 68
// and 135 KB buffers into its own, not through 64, 128 and 256 KB ones
// (506 KB allocated and 236 KB copied, against 718 and 448). Each buffer
// is still at most twice the one before it, which the bytes filled.
func firstBuffer(end int64) int64 {
	size := end
	for size > firstStep {
		size = (size + 1) / 2
	}
	return size
}

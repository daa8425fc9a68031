package httpapi

import (
	"errors"
	"io"
)

// readBody reads a body into one buffer, asking cover, before each buffer
// is allocated, to cover a body of its size (byteBudget); when cover says
// no, the read stops with errOverBudget. The buffer starts at firstStep
// and doubles as the bytes arrive, up to the declared length (length > 0)
// or else up to limit, the most bytes r gives: what a body holds and
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
	var buf []byte
	for size := min(firstStep, end); ; size = min(2*size, end) {
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

// firstStep is the first buffer of a body, whatever length it declares.
const firstStep = 64 << 10

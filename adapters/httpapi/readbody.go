package httpapi

import (
	"errors"
	"io"
	"math/bits"
	"slices"
	"sync"
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
//
// The buffers a body is read through on its way to the last (stepBuffer)
// go back to a pool once copied, and the next body reads through them
// again instead of allocating and clearing its own. A buffer that leaves
// readBody (the body, or what was read before an error) may have come
// from the pool but never goes back to it, and is clipped to what was
// read: it is the caller's alone.
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
	var pooled *[]byte // buf's pool buffer, if it has one
	for size := first; ; size = min(2*size, end) {
		if !cover(size) {
			return buf, errOverBudget
		}
		grown, from := stepBuffer(size, size == end)
		grown = append(grown, buf...)
		if pooled != nil {
			stepPool[stepClass(int64(cap(*pooled)))].Put(pooled)
		}
		buf, pooled = grown, from
		n, err := io.ReadFull(r, buf[len(buf):cap(buf)])
		buf = slices.Clip(buf[:len(buf)+n])
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

// maxPooledClass is the class (stepClass) of the largest buffer a body is
// read through that goes back to stepPool, 1 MiB: enough for the steps of
// a report with a file of a few hundred kilobytes, without keeping
// megabytes idle between large bodies.
const maxPooledClass = 20

// stepPool holds the buffers of readBody's steps by class: pool c holds
// buffers of 1<<c bytes.
var stepPool [maxPooledClass + 1]sync.Pool

// stepClass is the class of a step of size bytes (> 0): the smallest c
// with 1<<c >= size.
func stepClass(size int64) int { return bits.Len64(uint64(size - 1)) }

// stepBuffer returns an empty buffer of capacity size for one of a
// body's steps, and the pool buffer it is a view of (nil when it has
// none). The last step (the declared length, or the limit) and a step
// over the largest class are allocated: the pool serves only the steps
// before the last, a declared length's and an undeclared one's (powers
// of two from firstStep, which a body may also end in).
func stepBuffer(size int64, last bool) ([]byte, *[]byte) {
	if last || size <= 0 || stepClass(size) > maxPooledClass {
		return make([]byte, 0, size), nil
	}
	c := stepClass(size)
	p, ok := stepPool[c].Get().(*[]byte)
	if !ok {
		b := make([]byte, 1<<c)
		p = &b
	}
	return (*p)[:0:size], p
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
// (buffers of 506 KB in all and 236 KB copied, against 718 and 448). Each
// buffer is still at most twice the one before it, which the bytes filled.
func firstBuffer(end int64) int64 {
	size := end
	for size > firstStep {
		size = (size + 1) / 2
	}
	return size
}

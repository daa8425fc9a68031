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
// arrive, from firstStep (or less, when the body is smaller) up to the
// declared length (length > 0), or else up to limit, the most bytes r
// gives: what a body holds and reserves follows what has arrived, never
// what it declares (a client that declares 32 MiB and sends 60 KiB holds
// 128 KiB, not 32 MiB). A body that ends before its declared length is
// io.ErrUnexpectedEOF; one of unknown length is given with length < 0.
//
// The steps of up to 1 MiB are firstStep doubled, powers of two, and go
// back to a pool once copied (stepBuffer): the next body reads through
// them again instead of allocating and clearing its own, and a pool's
// buffer is exactly its step, so a body holds no more than the steps it
// reserved. Larger steps lead to the declared length (nextStep). A
// buffer that leaves readBody (the body, or what was read before an
// error) may have come from the pool but never goes back to it, and is
// clipped to what was read: it is the caller's alone.
func readBody(r io.Reader, length, limit int64, cover func(int64) bool) ([]byte, error) {
	if length == 0 {
		return []byte{}, nil // declared empty
	}
	end := limit
	if length > 0 {
		end = min(length, limit)
	}
	var buf []byte
	var pooled *[]byte // buf's pool buffer, if it has one
	for size := min(firstStep, end); ; size = nextStep(size, end, length > 0) {
		if !cover(size) {
			return buf, errOverBudget
		}
		grown, from := stepBuffer(size, size == end)
		grown = append(grown, buf...)
		if pooled != nil {
			poolOf(int64(len(*pooled))).Put(pooled)
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

// firstStep is the largest first buffer of a body, whatever length it
// declares.
const firstStep = 64 << 10

// nextStep is the step after size on a body's way to end: twice size up
// to maxPooledStep (the steps a pool holds), and past it, when the length
// is declared, the length halved as often as keeps the step within twice
// the one before, so that the last doubling lands on the length (a 28 MB
// body: 1, 1.75, 3.5, 7, 14 and 28 MB, not 1, 2, 4, 8, 16 and 28, whose
// larger steps would be garbage the pool does not take back). A step
// before the last is rounded up to firstStep's multiple (within twice
// the one before): the next step's bytes are read in at its end, and an
// odd offset there made copying a 28 MB body a quarter slower.
func nextStep(size, end int64, declared bool) int64 {
	if !declared || size < maxPooledStep {
		return min(2*size, end)
	}
	next := end
	for next > 2*size {
		next = (next + 1) / 2
	}
	if next < end {
		next = min((next+firstStep-1)/firstStep*firstStep, 2*size)
	}
	return next
}

// maxPooledShift is log2 of maxPooledStep, the largest step that goes
// back to stepPool, 1 MiB: enough for the steps of a report with a file
// of a few hundred kilobytes, without keeping megabytes idle between
// large bodies.
const (
	maxPooledShift = 20
	maxPooledStep  = 1 << maxPooledShift
)

// stepPool holds readBody's steps by size: pool c holds buffers of 1<<c
// bytes (firstStep up to maxPooledStep).
var stepPool [maxPooledShift + 1]sync.Pool

// poolOf is the pool of steps of size bytes, a power of two of at most
// maxPooledStep.
func poolOf(size int64) *sync.Pool { return &stepPool[bits.Len64(uint64(size))-1] }

// stepBuffer returns an empty buffer of capacity size for one of a
// body's steps, and the pool buffer it is (nil when it has none). The
// last step (the declared length, or the limit), a step over
// maxPooledStep and a size that is not a power of two are allocated.
func stepBuffer(size int64, last bool) ([]byte, *[]byte) {
	if last || size > maxPooledStep || size <= 0 || size&(size-1) != 0 {
		return make([]byte, 0, size), nil
	}
	p, ok := poolOf(size).Get().(*[]byte)
	if !ok {
		b := make([]byte, size)
		p = &b
	}
	return (*p)[:0], p
}

// errOverBudget ends the read of a body that the bytes in flight
// (Limits.MaxBytesInFlight) have no room for.
var errOverBudget = errors.New("over the bytes in flight")

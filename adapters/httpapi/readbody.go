package httpapi

import (
	"bytes"
	"errors"
	"io"
	"math/bits"
	"slices"
	"sync"
)

// readBody reads a body into one buffer, asking cover, before each buffer
// is allocated, to cover a body of its size (byteBudget); when cover says
// no, the read stops with errOverBudget. The buffers double as the bytes
// arrive, from firstStep (or less, when the body is smaller) up to the
// declared length (length > 0), or else up to limit, the most bytes r
// gives: what a body holds and reserves follows what has arrived, never
// what it declares (a client that declares 32 MiB and sends 60 KiB holds
// 128 KiB, not 32 MiB). A body that ends before its declared length is
// io.ErrUnexpectedEOF; one of unknown length is given with length < 0.
//
// The steps of up to 1 MiB are firstStep doubled, powers of two; each
// reads its new bytes into a pool buffer of their own (stepBuffer), and
// the body is those pieces joined once, the last step read into room left
// at the end of the joined buffer (W2's 278,520 bytes: one copy, into a
// buffer that is not cleared first, not a copy a step and a cleared
// buffer of its size). The pieces go back to their pools. Larger steps
// (nextStep) are one buffer each, the body so far copied into it.
// The buffer returned (the body, or what was read before an error) is the
// caller's alone, never a pool's.
func readBody(r io.Reader, length, limit int64, cover func(int64) bool) ([]byte, error) {
	if length == 0 {
		return []byte{}, nil // declared empty
	}
	end := limit
	if length > 0 {
		end = min(length, limit)
	}
	var ps pieces // while the steps are pooled
	defer ps.release()
	var buf []byte // past them: the body so far, in one buffer
	have := int64(0)
	for size := min(firstStep, end); ; have, size = size, nextStep(size, end, length > 0) {
		if !cover(size) {
			return ps.body(buf), errOverBudget
		}
		var into []byte
		switch {
		case buf == nil && size == end && size <= maxPooledStep && ps.n > 0: // the last step: the pieces joined, with room for it
			buf = ps.joinWithRoom(int(size - have))
			into = buf[len(buf):cap(buf)]
		case buf == nil && size <= maxPooledStep:
			into = ps.add(size-have, size == end)
		default:
			grown := make([]byte, 0, size)
			buf = append(ps.appendTo(grown), buf...)
			ps.release()
			into = buf[len(buf):cap(buf)]
		}
		n, err := io.ReadFull(r, into)
		if buf != nil {
			buf = buf[:len(buf)+n]
		} else {
			ps.read(n)
		}
		switch {
		case (errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF)) && length > 0:
			return ps.body(buf), io.ErrUnexpectedEOF
		case errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF):
			return ps.body(buf), nil
		case err != nil:
			return ps.body(buf), err
		case size == end:
			return ps.body(buf), nil // the declared length, or all that r gives
		}
	}
}

// pieces are the bytes of a body's pooled steps, each step's new bytes in
// a buffer of their own, and the pool buffer each is (nil: allocated).
// They live in readBody's frame: no allocation for the lists.
type pieces struct {
	n      int
	bufs   [maxPieces][]byte
	pooled [maxPieces]*[]byte
}

// maxPieces is the most pieces a body has: firstStep, then each doubling
// up to maxPooledStep.
const maxPieces = maxPooledShift - firstStepShift + 1

// add takes a buffer for n more bytes (stepBuffer's: last is the body's
// last step) and returns it to be read into.
func (p *pieces) add(n int64, last bool) []byte {
	b, from := stepBuffer(n, last)
	p.bufs[p.n], p.pooled[p.n] = b, from
	p.n++
	return b[:cap(b)]
}

// read records that the last buffer added holds n bytes.
func (p *pieces) read(n int) { p.bufs[p.n-1] = p.bufs[p.n-1][:n] }

// appendTo appends the bytes read to b.
func (p *pieces) appendTo(b []byte) []byte {
	for _, r := range p.bufs[:p.n] {
		b = append(b, r...)
	}
	return b
}

// joinWithRoom joins the pieces into a buffer with room bytes more, and
// releases them: the body's last step is read into that room, so it is
// no buffer of its own. bytes.Join does not clear what it allocates; the
// room is copied from zeroRoom and read over.
func (p *pieces) joinWithRoom(room int) []byte {
	p.bufs[p.n] = zeroRoom[:room]
	b := bytes.Join(p.bufs[:p.n+1], nil)
	p.release()
	return b[:len(b)-room]
}

// zeroRoom is joinWithRoom's source of the room: a last step is at most
// twice the one before, so its new bytes are at most half of
// maxPooledStep. Never written.
var zeroRoom [maxPooledStep / 2]byte

// body is the body read: buf when the read went past the pieces, else the
// pieces joined into a buffer of their size (uncleared, one copy), or the
// one piece itself (a pool's buffer then leaves its pool for good, as a
// body that ends within firstStep, with no length declared, reserved it
// whole). Nil when nothing was read into.
func (p *pieces) body(buf []byte) []byte {
	switch {
	case buf != nil:
		return slices.Clip(buf)
	case p.n == 0:
		return nil
	case p.n == 1: // a body within its first step: that buffer, not a copy
		b := slices.Clip(p.bufs[0])
		*p = pieces{} // the caller's now: a pool's buffer does not go back
		return b
	}
	return slices.Clip(bytes.Join(p.bufs[:p.n], nil))
}

// release gives the pool buffers back (once; nothing of them may be held).
func (p *pieces) release() {
	for _, from := range p.pooled[:p.n] {
		if from != nil {
			poolOf(int64(len(*from))).Put(from)
		}
	}
	*p = pieces{}
}

// firstStep is the largest first buffer of a body, whatever length it
// declares.
const (
	firstStepShift = 16
	firstStep      = 1 << firstStepShift
)

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

// maxPooledShift is log2 of maxPooledStep, the largest step read as
// pieces in stepPool's buffers (its new bytes, half of it, in one), 1 MiB:
// enough for the steps of a report with a file of a few hundred
// kilobytes, without keeping megabytes idle between large bodies.
const (
	maxPooledShift = 20
	maxPooledStep  = 1 << maxPooledShift
)

// stepPool holds readBody's pieces by size: pool c holds buffers of 1<<c
// bytes (firstStep up to half maxPooledStep).
var stepPool [maxPooledShift + 1]sync.Pool

// poolOf is the pool of pieces of size bytes, a power of two of at most
// maxPooledStep.
func poolOf(size int64) *sync.Pool { return &stepPool[bits.Len64(uint64(size))-1] }

// stepBuffer returns an empty buffer of capacity size for one of a
// body's pieces, and the pool buffer it is (nil when it has none). The
// last (up to the declared length, or the limit), one over maxPooledStep
// and a size that is not a power of two are allocated.
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

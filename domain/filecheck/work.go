package filecheck

import (
	"errors"
	"strconv"
)

// The work of one Inspect beyond its one pass over the decoded content
// (which costs the file's size once) is counted: every byte decoded
// again to be read at an offset, every byte read at an offset, every
// read (at least readCost, so that many small reads count as what they
// cost), every byte of compressed data walked for its stored blocks. A
// file whose checks would do more than maxWork(size) is refused as one
// that cannot be inspected: real files read their structures about once
// or twice, so the bound is a few times the size, and work grows with
// what arrived, never with what the file's offsets and counts promise.
const (
	readCost   = 64       // the least one read at an offset counts
	workFactor = 4        // times the file's size
	workSlack  = 16 << 20 // plus this, for small files with many structures
	pollEvery  = 1 << 20  // units of work between two looks at the stop channel
)

// maxWork is the work that checking a file of size bytes may take.
func maxWork(size int64) int64 { return workFactor*size + workSlack }

// work counts what one Inspect does and watches its stop channel.
type work struct {
	stop     <-chan struct{} // closed: end now; nil never closes
	spent    int64
	limit    int64 // maxWork of the file's size
	nextPoll int64
	decodes  int64    // blocks decoded again (tests read it)
	failed   *Finding // the first finding spend returned
}

// errWork is what a reader that spends work returns once spend has
// refused: the finding itself is work.failed.
var errWork = errors.New("the file check's work is over")

// stoppedFinding is the finding of a check ended by its stop channel:
// the request that asked for it is gone or out of time. It is no verdict
// on the file, and domain answers it as the service's own failure.
func stoppedFinding() *Finding {
	return refuse(Stopped, "la revisión del archivo se detuvo: la solicitud terminó o superó su tiempo")
}

// stopped reports whether the stop channel is closed.
func (w *work) stopped() bool {
	if w.stop == nil {
		return false
	}
	select {
	case <-w.stop:
		return true
	default:
		return false
	}
}

// spend counts n units; it refuses the file once the work is past the
// bound, and ends the check when the stop channel is closed (looked at
// every pollEvery units). Once it has returned a finding it returns the
// same one again.
func (w *work) spend(n int64) *Finding {
	if w.failed != nil {
		return w.failed
	}
	w.spent += n
	switch {
	case w.spent > w.limit:
		w.failed = refuse(TypeRefused, "el archivo no se puede inspeccionar: leer su estructura costaría más de "+
			strconv.FormatInt(workFactor, 10)+" veces su tamaño")
	case w.spent >= w.nextPoll:
		w.nextPoll = w.spent + pollEvery
		if w.stopped() {
			w.failed = stoppedFinding()
		}
	}
	return w.failed
}

// err is spend for a reader: errWork when spend refuses.
func (w *work) err(n int64) error {
	if w.spend(n) != nil {
		return errWork
	}
	return nil
}

// cause is the finding behind a reader's error: work.failed when the
// work ended it, else none (a read past the end, which the caller judges).
func (w *work) cause(err error) *Finding {
	if errors.Is(err, errWork) {
		return w.failed
	}
	return nil
}

package httpapi

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// largeBody is the body size from which a finished report asks for a
// garbage collection (reclaim).
const largeBody = 4 << 20

// reclaimer runs a garbage collection after a large body is done with.
// The Go heap's target is twice the heap live at the last collection; a
// collection that ran while a 27 MiB body was live lets the next one or
// two be allocated beside it, so sequential 20 MiB files held three to
// four bodies of memory. A collection right after each large report
// frees its body for the next one to reuse. At most one collection runs
// and one waits, however many large reports end together; each costs
// about a millisecond of CPU (the live heap, without the body, is small)
// against a large report's 140 ms.
type reclaimer struct {
	mu      sync.Mutex
	pending atomic.Bool
	gc      func()
}

func newReclaimer() *reclaimer { return &reclaimer{gc: runtime.GC} }

// after is called when a report whose body had n bytes has been answered.
func (c *reclaimer) after(n int) {
	if n < largeBody || c.pending.Swap(true) {
		return
	}
	go func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.pending.Store(false)
		c.gc()
	}()
}

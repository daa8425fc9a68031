package httpapi

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// largeBody is the body size from which a finished report asks for a
// garbage collection (reclaim).
const largeBody = 4 << 20

// reclaimer runs a garbage collection after a large body is done with,
// so that sequential large reports reuse one body's memory instead of
// each being allocated beside the last: the Go heap's target is twice the
// heap live at the last collection, and that collection may have seen a
// body live. At most one collection runs and one waits, however many
// large reports end together. What it costs and saves is measured in
// docs/performance.md (W3, "the collection after large bodies").
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

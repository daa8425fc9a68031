package httpapi

import (
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestReclaimAfterLargeBodiesOnly: small bodies never ask for a
// collection; large ones that end together share at most one running and
// one waiting collection.
func TestReclaimAfterLargeBodiesOnly(t *testing.T) {
	release := make(chan struct{})
	var mu sync.Mutex
	calls := 0
	var finished atomic.Int64
	c := newReclaimer()
	c.gc = func() {
		mu.Lock()
		calls++
		mu.Unlock()
		<-release
		finished.Add(1)
	}
	for range 100 {
		c.after(largeBody - 1)
	}
	time.Sleep(20 * time.Millisecond)
	mu.Lock()
	if calls != 0 {
		t.Fatalf("%d collections after small bodies, want 0", calls)
	}
	mu.Unlock()

	c.after(largeBody) // starts one, which blocks in gc
	waitFor(t, func() bool { mu.Lock(); defer mu.Unlock(); return calls == 1 })
	for range 100 {
		c.after(32 << 20) // one waits; the rest coalesce into it
	}
	close(release)
	waitFor(t, func() bool { return finished.Load() == 2 })
	time.Sleep(20 * time.Millisecond)
	if n := finished.Load(); n != 2 {
		t.Fatalf("%d collections for 101 large bodies ending together, want 2", n)
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met within 5s")
		}
		time.Sleep(time.Millisecond)
	}
}

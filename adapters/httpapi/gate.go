package httpapi

import "sync"

// keyedGate bounds work under way at once: at most total in all and at
// most perKey for one key (a partner, a client address), so one key's
// requests, from however many connections, cannot take every place. It
// serves the report bodies being received (contract §7, "A slow body
// holds no report slot"), the token bodies, and the look-ups (§10). A
// key's entry exists only while it holds a place, so the map holds at
// most total entries. A full gate turns the request away at once
// (Server.overloaded); nothing queues.
type keyedGate struct {
	mu     sync.Mutex
	total  int
	perKey int
	n      int
	by     map[string]int
}

func newKeyedGate(total, perKey int) *keyedGate {
	return &keyedGate{total: total, perKey: perKey, by: map[string]int{}}
}

// enter takes a place for key; false when the total or key's bound is
// full.
func (g *keyedGate) enter(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.n >= g.total || g.by[key] >= g.perKey {
		return false
	}
	g.n++
	g.by[key]++
	return true
}

// leave gives back a place that enter took.
func (g *keyedGate) leave(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.n--
	if g.by[key]--; g.by[key] <= 0 {
		delete(g.by, key)
	}
}

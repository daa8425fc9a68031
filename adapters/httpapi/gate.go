package httpapi

import "sync"

// keyedGate bounds work under way at once: at most total in all and at
// most perKey for one key (a partner, a client address), so one key's
// requests, from however many connections, cannot take every place. It
// serves the report bodies being received (contract §7, "A slow body
// holds no report slot"), the token bodies, and the look-ups (§10). A
// full gate turns the request away at once (Server.overloaded); nothing
// queues.
//
// A gate with first places (firsts > 0) gives a key that holds no place
// one outside the total, while fewer than firsts keys hold one: a key
// with nothing under way then always gets a place, however many other
// keys have filled the total (issue 32, finding 5: four or five partners
// paging back to back held every look-up slot). A key's later places come
// from the total, up to perKey in all; the first place is the last it
// gives back.
//
// A key's entry exists only while it holds a place, so the map holds at
// most total + firsts entries.
type keyedGate struct {
	mu     sync.Mutex
	total  int
	perKey int
	firsts int // first places outside total; 0: none
	n      int // places of total taken
	lanes  int // first places taken
	by     map[string]keyPlaces
}

// keyPlaces are the places one key holds.
type keyPlaces struct {
	first  bool // one of the first places
	shared int  // places of total
}

func newKeyedGate(total, perKey int) *keyedGate {
	return &keyedGate{total: total, perKey: perKey, by: map[string]keyPlaces{}}
}

// newFairGate is a keyedGate with firsts first places beside total.
func newFairGate(total, perKey, firsts int) *keyedGate {
	g := newKeyedGate(total, perKey)
	g.firsts = firsts
	return g
}

// enter takes a place for key; false when key's bound is full, or the
// total is and key gets no first place.
func (g *keyedGate) enter(key string) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.by[key]
	held := p.shared
	if p.first {
		held++
	}
	switch {
	case held >= g.perKey:
		return false
	case held == 0 && g.lanes < g.firsts:
		p.first = true
		g.lanes++
	case g.n < g.total:
		p.shared++
		g.n++
	default:
		return false
	}
	g.by[key] = p
	return true
}

// leave gives back a place that enter took: one of total while key holds
// any, its first place last.
func (g *keyedGate) leave(key string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.by[key]
	switch {
	case p.shared > 0:
		p.shared--
		g.n--
	case p.first:
		p.first = false
		g.lanes--
	}
	if p.shared == 0 && !p.first {
		delete(g.by, key)
		return
	}
	g.by[key] = p
}

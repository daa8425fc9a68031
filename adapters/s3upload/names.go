package s3upload

import "sync"

// nameBook keeps the object names this Store is writing or has written
// lately, so that Saves of one credit number in one millisecond take
// distinct names before they upload, instead of learning of the clash from
// a 412 after sending the whole body. It only spares uploads: the names
// stay unique because every PUT is conditional (If-None-Match: *), which
// also covers names taken by other replicas or earlier processes. A clash
// with another replica still costs the loser a second PUT of its body.
type nameBook struct {
	mu     sync.Mutex
	inUse  map[string]bool // reserved (being written) or recently written
	recent []string        // written names, a ring of at most maxRecent
	next   int
}

// maxRecent bounds the written names remembered; older ones are forgotten
// (a clash with one of them costs a PUT, never a wrong name).
const maxRecent = 4096

func newNameBook() *nameBook { return &nameBook{inUse: map[string]bool{}} }

// reserve takes name for one Save; false when it is in use here.
func (b *nameBook) reserve(name string) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.inUse[name] {
		return false
	}
	b.inUse[name] = true
	return true
}

// release ends a reservation: a name that now exists in the bucket
// (written, or found taken) is remembered; any other is freed.
func (b *nameBook) release(name string, exists bool) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if !exists {
		delete(b.inUse, name)
		return
	}
	if len(b.recent) < maxRecent {
		b.recent = append(b.recent, name)
		return
	}
	delete(b.inUse, b.recent[b.next])
	b.recent[b.next] = name
	b.next = (b.next + 1) % maxRecent
}

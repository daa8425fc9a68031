package memstate

import (
	"context"
	"crypto/rand"
	"strings"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/lender/disbursementd/ports"
)

// Throttle is an in-memory ports.LoginThrottle: per key, the reservations
// in the last window, at most limit of them. Keys are "kind:value" (user
// names, client addresses), and each kind has its own least-recently-used
// cache of maxKeys keys: a flood of one kind (addresses from a large IPv6
// block, made-up user names) evicts only keys of that kind, never the
// budget of a user under attack. Memory is bounded by maxKeys × limit per
// kind, and by maxKinds kinds.
type Throttle struct {
	mu      sync.Mutex
	maxKeys int
	kinds   map[string]*lru.Cache[string, []attempt]
}

// maxKinds bounds the caches; keys of further kinds share one.
const maxKinds = 8

type attempt struct {
	id string
	at time.Time
}

var _ ports.LoginThrottle = (*Throttle)(nil)

// NewThrottle returns a throttle that remembers at most maxKeys keys.
func NewThrottle(maxKeys int) (*Throttle, error) {
	if _, err := lru.New[string, []attempt](maxKeys); err != nil {
		return nil, err
	}
	return &Throttle{maxKeys: maxKeys, kinds: map[string]*lru.Cache[string, []attempt]{}}, nil
}

// cache returns the cache of key's kind (what precedes its first colon).
func (t *Throttle) cache(key string) *lru.Cache[string, []attempt] {
	kind, _, ok := strings.Cut(key, ":")
	if !ok {
		kind = ""
	}
	c := t.kinds[kind]
	if c == nil {
		if len(t.kinds) >= maxKinds {
			kind = "(other)"
			if c = t.kinds[kind]; c != nil {
				return c
			}
		}
		c, _ = lru.New[string, []attempt](t.maxKeys) // maxKeys was checked by NewThrottle
		t.kinds[kind] = c
	}
	return c
}

// Take reserves a slot when fewer than limit are held within window.
func (t *Throttle) Take(_ context.Context, key string, limit int, window time.Duration, now time.Time) (ports.Reservation, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := t.cache(key)
	held, _ := keys.Get(key)
	live := held[:0]
	for _, a := range held {
		if a.at.After(now.Add(-window)) {
			live = append(live, a)
		}
	}
	if len(live) >= limit {
		keys.Add(key, live)
		return ports.Reservation{Key: key, RetryAfter: live[len(live)-limit].at.Add(window).Sub(now)}, nil
	}
	a := attempt{id: rand.Text(), at: now}
	keys.Add(key, append(live, a))
	return ports.Reservation{Key: key, ID: a.id, OK: true}, nil
}

// Cancel drops a reservation, if it is still held.
func (t *Throttle) Cancel(_ context.Context, r ports.Reservation) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	keys := t.cache(r.Key)
	held, ok := keys.Peek(r.Key)
	if !ok {
		return nil
	}
	for i, a := range held {
		if a.id == r.ID {
			rest := append(append([]attempt(nil), held[:i]...), held[i+1:]...)
			if len(rest) == 0 {
				keys.Remove(r.Key)
			} else {
				keys.Add(r.Key, rest)
			}
			break
		}
	}
	return nil
}

// Len returns the number of keys held, of all kinds.
func (t *Throttle) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	n := 0
	for _, c := range t.kinds {
		n += c.Len()
	}
	return n
}

package memstate

import (
	"context"
	"crypto/rand"
	"fmt"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/lender/disbursementd/ports"
)

// Throttle is an in-memory ports.LoginThrottle: per key, the slots taken
// in the last window, at most limit of them. Each kind of key (user names,
// client addresses) has its own least-recently-used cache of maxKeys
// keys: a flood of one kind (addresses from a large IPv6 block, made-up
// user names) evicts only keys of that kind, never the budget of a user
// under attack. Memory is bounded by maxKeys × limit per kind, and the
// kinds are ports.ThrottleKinds.
type Throttle struct {
	mu    sync.Mutex
	kinds map[ports.ThrottleKind]*lru.Cache[string, []attempt]
}

type attempt struct {
	id string
	at time.Time
}

var _ ports.LoginThrottle = (*Throttle)(nil)

// NewThrottle returns a throttle that remembers at most maxKeys keys of
// each kind.
func NewThrottle(maxKeys int) (*Throttle, error) {
	t := &Throttle{kinds: map[ports.ThrottleKind]*lru.Cache[string, []attempt]{}}
	for _, k := range ports.ThrottleKinds {
		c, err := lru.New[string, []attempt](maxKeys)
		if err != nil {
			return nil, err
		}
		t.kinds[k] = c
	}
	return t, nil
}

// Take reserves a slot when fewer than limit are held within window.
func (t *Throttle) Take(_ context.Context, key ports.ThrottleKey, limit int, window time.Duration, now time.Time) (ports.Slot, error) {
	keys, err := t.cache(key.Kind)
	if err != nil {
		return ports.Slot{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	held, _ := keys.Get(key.Value)
	live := appendLive(held[:0], held, window, now) // in place: the expired ones are forgotten
	if len(live) >= limit {
		keys.Add(key.Value, live)
		return ports.Slot{Verdict: full(live, limit, window, now), Key: key}, nil
	}
	a := attempt{id: rand.Text(), at: now}
	keys.Add(key.Value, append(live, a))
	return ports.Slot{Verdict: ports.Verdict{OK: true}, Key: key, ID: a.id}, nil
}

// Check tells whether Take would find a slot, and changes nothing (the
// key's place in its cache included).
func (t *Throttle) Check(_ context.Context, key ports.ThrottleKey, limit int, window time.Duration, now time.Time) (ports.Verdict, error) {
	keys, err := t.cache(key.Kind)
	if err != nil {
		return ports.Verdict{}, err
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	held, _ := keys.Peek(key.Value)
	if live := appendLive(nil, held, window, now); len(live) >= limit {
		return full(live, limit, window, now), nil
	}
	return ports.Verdict{OK: true}, nil
}

// cache is the cache of keys of kind.
func (t *Throttle) cache(kind ports.ThrottleKind) (*lru.Cache[string, []attempt], error) {
	keys, ok := t.kinds[kind]
	if !ok {
		return nil, fmt.Errorf("throttle: unknown kind %d", kind)
	}
	return keys, nil
}

// appendLive appends to dst the attempts of held (oldest first) made
// within window before now.
func appendLive(dst, held []attempt, window time.Duration, now time.Time) []attempt {
	for _, a := range held {
		if a.at.After(now.Add(-window)) {
			dst = append(dst, a)
		}
	}
	return dst
}

// full is the refusal of a key whose live attempts (oldest first) fill
// limit: a slot frees when the oldest of the last limit leaves the window.
func full(live []attempt, limit int, window time.Duration, now time.Time) ports.Verdict {
	return ports.Verdict{RetryAfter: live[len(live)-limit].at.Add(window).Sub(now)}
}

// Cancel gives a slot back, if it is still held.
func (t *Throttle) Cancel(_ context.Context, r ports.Slot) error {
	keys, ok := t.kinds[r.Key.Kind]
	if !ok {
		return nil
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	held, ok := keys.Peek(r.Key.Value)
	if !ok {
		return nil
	}
	for i, a := range held {
		if a.id == r.ID {
			rest := append(append([]attempt(nil), held[:i]...), held[i+1:]...)
			if len(rest) == 0 {
				keys.Remove(r.Key.Value)
			} else {
				keys.Add(r.Key.Value, rest)
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

package memstate

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/lender/disbursementd/ports"
)

// Throttle is an in-memory ports.LoginThrottle: per key, the reservations
// in the last window, at most limit of them. Keys beyond MaxKeys evict the
// least recently used, so memory is bounded by MaxKeys × limit.
type Throttle struct {
	mu   sync.Mutex
	keys *lru.Cache[string, []attempt]
}

type attempt struct {
	id string
	at time.Time
}

var _ ports.LoginThrottle = (*Throttle)(nil)

// NewThrottle returns a throttle that remembers at most maxKeys keys.
func NewThrottle(maxKeys int) (*Throttle, error) {
	c, err := lru.New[string, []attempt](maxKeys)
	if err != nil {
		return nil, err
	}
	return &Throttle{keys: c}, nil
}

// Take reserves a slot when fewer than limit are held within window.
func (t *Throttle) Take(_ context.Context, key string, limit int, window time.Duration, now time.Time) (ports.Reservation, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	held, _ := t.keys.Get(key)
	live := held[:0]
	for _, a := range held {
		if a.at.After(now.Add(-window)) {
			live = append(live, a)
		}
	}
	if len(live) >= limit {
		t.keys.Add(key, live)
		return ports.Reservation{Key: key, RetryAfter: live[len(live)-limit].at.Add(window).Sub(now)}, nil
	}
	a := attempt{id: newID(), at: now}
	t.keys.Add(key, append(live, a))
	return ports.Reservation{Key: key, ID: a.id, OK: true}, nil
}

// Cancel drops a reservation, if it is still held.
func (t *Throttle) Cancel(_ context.Context, r ports.Reservation) error {
	t.mu.Lock()
	defer t.mu.Unlock()
	held, ok := t.keys.Peek(r.Key)
	if !ok {
		return nil
	}
	for i, a := range held {
		if a.id == r.ID {
			rest := append(append([]attempt(nil), held[:i]...), held[i+1:]...)
			if len(rest) == 0 {
				t.keys.Remove(r.Key)
			} else {
				t.keys.Add(r.Key, rest)
			}
			break
		}
	}
	return nil
}

// Len returns the number of keys held.
func (t *Throttle) Len() int { return t.keys.Len() }

func newID() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

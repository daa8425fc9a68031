package ports

import (
	"sync"
	"time"
)

// Throttle counts failed login attempts in sliding windows, per user name
// and per client address. Successes do not count, and nothing locks a
// partner out for longer than the window: the oldest failure ages out.
type Throttle struct {
	UserLimit, AddrLimit   int
	UserWindow, AddrWindow time.Duration
	MaxKeys                int // memory bound; 0 means 100,000

	mu    sync.Mutex
	fails map[string][]time.Time
}

// NewThrottle returns the contract's defaults: 10 failures per user in 15
// minutes, 30 per client address in a minute.
func NewThrottle() *Throttle {
	return &Throttle{UserLimit: 10, UserWindow: 15 * time.Minute, AddrLimit: 30, AddrWindow: time.Minute}
}

// Allow reports whether user and addr may try now; when not, retryAfter
// says when the oldest failure in the full window leaves it.
func (t *Throttle) Allow(user, addr string, now time.Time) (ok bool, retryAfter time.Duration) {
	if t == nil {
		return true, 0
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, k := range []struct {
		key    string
		limit  int
		window time.Duration
	}{{"u:" + user, t.UserLimit, t.UserWindow}, {"a:" + addr, t.AddrLimit, t.AddrWindow}} {
		if k.limit <= 0 || k.key == "u:" || k.key == "a:" {
			continue
		}
		recent := t.recent(k.key, k.window, now)
		if len(recent) >= k.limit {
			wait := recent[len(recent)-k.limit].Add(k.window).Sub(now)
			if wait > retryAfter {
				retryAfter = wait
			}
		}
	}
	return retryAfter == 0, retryAfter
}

// Fail records a failed attempt.
func (t *Throttle) Fail(user, addr string, now time.Time) {
	if t == nil {
		return
	}
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.fails == nil {
		t.fails = map[string][]time.Time{}
	}
	limit := t.MaxKeys
	if limit == 0 {
		limit = 100_000
	}
	if len(t.fails) >= limit {
		t.prune(now)
	}
	if user != "" {
		t.fails["u:"+user] = append(t.recent("u:"+user, t.UserWindow, now), now)
	}
	if addr != "" {
		t.fails["a:"+addr] = append(t.recent("a:"+addr, t.AddrWindow, now), now)
	}
}

// recent returns the failures of key still inside window (caller locks).
func (t *Throttle) recent(key string, window time.Duration, now time.Time) []time.Time {
	list := t.fails[key]
	i := 0
	for i < len(list) && !list[i].After(now.Add(-window)) {
		i++
	}
	list = list[i:]
	if len(list) == 0 {
		delete(t.fails, key)
		return nil
	}
	t.fails[key] = list
	return list
}

func (t *Throttle) prune(now time.Time) {
	for k := range t.fails {
		w := t.AddrWindow
		if k[0] == 'u' {
			w = t.UserWindow
		}
		t.recent(k, w, now)
	}
}

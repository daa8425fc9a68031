package httpapi

import (
	"sync"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
)

// logGate lets one log line through per key and window (contract §7:
// throttled attempts log at most one line per key per window), so a flood
// of refused logins cannot flood the log. It remembers a bounded number of
// keys.
type logGate struct {
	mu   sync.Mutex
	seen *lru.Cache[string, time.Time]
}

func newLogGate(size int) *logGate {
	c, _ := lru.New[string, time.Time](size) // size > 0: no error
	return &logGate{seen: c}
}

// first reports whether key has not been let through before until, and
// remembers it until then.
func (g *logGate) first(key string, now, until time.Time) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	if end, ok := g.seen.Get(key); ok && now.Before(end) {
		return false
	}
	g.seen.Add(key, until)
	return true
}

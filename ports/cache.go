package ports

import (
	"crypto/sha256"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TokenCache remembers tokens whose signature was verified, so a partner
// that reuses one token does not pay an RSA verification per request. It
// is bounded in size, and an entry lives no longer than its token's exp.
// The claim rules (expiry with leeway) are still applied on every use.
type TokenCache struct {
	Max int // entries; 0 means 10,000

	mu      sync.Mutex
	entries map[[32]byte]domain.Claims
}

func (c *TokenCache) get(tok string, now time.Time) (domain.Claims, bool) {
	if c == nil {
		return domain.Claims{}, false
	}
	k := sha256.Sum256([]byte(tok))
	c.mu.Lock()
	defer c.mu.Unlock()
	cl, ok := c.entries[k]
	if ok && !now.Before(cl.Expiry) {
		delete(c.entries, k)
		return domain.Claims{}, false
	}
	return cl, ok
}

func (c *TokenCache) put(tok string, cl domain.Claims, now time.Time) {
	if c == nil {
		return
	}
	k := sha256.Sum256([]byte(tok))
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil {
		c.entries = map[[32]byte]domain.Claims{}
	}
	limit := c.Max
	if limit <= 0 {
		limit = 10_000
	}
	if len(c.entries) >= limit {
		// Drop the expired, then, if still full, an arbitrary tenth.
		for key, e := range c.entries {
			if !now.Before(e.Expiry) {
				delete(c.entries, key)
			}
		}
		for key := range c.entries {
			if len(c.entries) < limit*9/10 {
				break
			}
			delete(c.entries, key)
		}
	}
	c.entries[k] = cl
}

// Len returns the number of cached tokens.
func (c *TokenCache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// UserStatusCache remembers whether a user is active for at most
// Staleness, so a deactivation takes effect within that time without a
// database read per request.
type UserStatusCache struct {
	Staleness time.Duration // 0 means no caching

	mu      sync.Mutex
	entries map[string]userStatus
}

type userStatus struct {
	known, active bool
	at            time.Time
}

func (c *UserStatusCache) get(user string, now time.Time) (userStatus, bool) {
	if c == nil || c.Staleness <= 0 {
		return userStatus{}, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	s, ok := c.entries[user]
	if !ok || now.Sub(s.at) >= c.Staleness {
		return userStatus{}, false
	}
	return s, true
}

func (c *UserStatusCache) put(user string, s userStatus) {
	if c == nil || c.Staleness <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.entries == nil || len(c.entries) > 100_000 {
		c.entries = map[string]userStatus{}
	}
	c.entries[user] = s
}

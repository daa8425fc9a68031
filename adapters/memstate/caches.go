package memstate

import (
	"crypto/sha256"
	"unsafe"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TokenCache is an in-memory ports.TokenCache, keyed by the token's
// SHA-256 so an entry's size does not depend on what a client sent.
type TokenCache struct {
	c *lru.Cache[[32]byte, domain.Claims]
}

var _ ports.TokenCache = (*TokenCache)(nil)

// NewTokenCache returns a cache of at most size tokens.
func NewTokenCache(size int) (*TokenCache, error) {
	c, err := lru.New[[32]byte, domain.Claims](size)
	if err != nil {
		return nil, err
	}
	return &TokenCache{c: c}, nil
}

// Get returns the claims of a token verified before.
func (t *TokenCache) Get(token string) (domain.Claims, bool) {
	return t.c.Get(tokenKey(token))
}

// tokenKey is the cache's key for token: its SHA-256, read from the
// string's own bytes (a token is about 800 bytes, which []byte(token)
// copied to the heap on every request; Sum256 only reads them).
func tokenKey(token string) [sha256.Size]byte {
	return sha256.Sum256(unsafe.Slice(unsafe.StringData(token), len(token)))
}

// Put remembers a verified token.
func (t *TokenCache) Put(token string, c domain.Claims) { t.c.Add(tokenKey(token), c) }

// Len returns the number of tokens held.
func (t *TokenCache) Len() int { return t.c.Len() }

// UserStatusCache is an in-memory ports.UserStatusCache.
type UserStatusCache struct {
	c *lru.Cache[string, ports.UserStatus]
}

var _ ports.UserStatusCache = (*UserStatusCache)(nil)

// NewUserStatusCache returns a cache of at most size users.
func NewUserStatusCache(size int) (*UserStatusCache, error) {
	c, err := lru.New[string, ports.UserStatus](size)
	if err != nil {
		return nil, err
	}
	return &UserStatusCache{c: c}, nil
}

// Get returns what the store said of user, and when.
func (u *UserStatusCache) Get(user string) (ports.UserStatus, bool) { return u.c.Get(user) }

// Put remembers what the store said of user.
func (u *UserStatusCache) Put(user string, s ports.UserStatus) { u.c.Add(user, s) }

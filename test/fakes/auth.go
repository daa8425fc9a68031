package fakes

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Users is an in-memory ports.UserStore.
type Users struct {
	mu    sync.Mutex
	users map[string]domain.User
	Reads atomic.Int64 // GetUser calls
}

var _ ports.UserStore = (*Users)(nil)

// NewUsers returns a store holding users.
func NewUsers(users ...domain.User) *Users {
	m := &Users{users: map[string]domain.User{}}
	for _, u := range users {
		m.users[u.Name] = u
	}
	return m
}

// CreateUser adds a user.
func (m *Users) CreateUser(_ context.Context, u domain.User) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.users[u.Name]; ok {
		return fmt.Errorf("user %q: %w", u.Name, domain.ErrConflict)
	}
	m.users[u.Name] = u
	return nil
}

// GetUser returns a user, comparing names byte for byte.
func (m *Users) GetUser(_ context.Context, name string) (domain.User, error) {
	m.Reads.Add(1)
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[name]
	if !ok {
		return domain.User{}, fmt.Errorf("user %q: %w", name, domain.ErrNotFound)
	}
	return u, nil
}

// SetActive sets a user's flag.
func (m *Users) SetActive(_ context.Context, name string, active bool) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[name]
	if !ok {
		return fmt.Errorf("user %q: %w", name, domain.ErrNotFound)
	}
	u.Active = active
	m.users[name] = u
	return nil
}

// ListUsers returns every user, by name.
func (m *Users) ListUsers(context.Context) ([]domain.User, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]domain.User, 0, len(m.users))
	for _, u := range m.users {
		out = append(out, u)
	}
	slices.SortFunc(out, func(a, b domain.User) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// ChangePassword replaces a hash and records when.
func (m *Users) ChangePassword(_ context.Context, name, hash string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[name]
	if !ok {
		return fmt.Errorf("user %q: %w", name, domain.ErrNotFound)
	}
	u.PasswordHash, u.PasswordChangedAt = hash, at
	u.PreviousPasswordHash, u.PreviousUntil = "", time.Time{}
	m.users[name] = u
	return nil
}

// RotatePassword writes a rotation when the hash is still currentHash.
func (m *Users) RotatePassword(_ context.Context, name, currentHash string, r domain.Rotation) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[name]
	switch {
	case !ok:
		return fmt.Errorf("user %q: %w", name, domain.ErrNotFound)
	case u.PasswordHash != currentHash:
		return fmt.Errorf("user %q changed: %w", name, domain.ErrConflict)
	}
	u.PasswordHash, u.PreviousPasswordHash, u.RotatedAt, u.PreviousUntil = r.NewHash, r.PreviousHash, r.RotatedAt, r.PreviousUntil
	if !r.TokensFrom.IsZero() {
		u.PasswordChangedAt = r.TokensFrom
	}
	m.users[name] = u
	return nil
}

// SetPasswordHash replaces the hash old.
func (m *Users) SetPasswordHash(_ context.Context, name, old, hash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	u, ok := m.users[name]
	if !ok {
		return fmt.Errorf("user %q: %w", name, domain.ErrNotFound)
	}
	if u.PasswordHash != old {
		return fmt.Errorf("user %q changed during the rehash: %w", name, domain.ErrConflict)
	}
	u.PasswordHash = hash
	m.users[name] = u
	return nil
}

// Hasher "hashes" by prefixing and counts comparisons, so a test can see
// that unknown users pay one comparison like everyone else. "old:" hashes
// stand for imported hashes of another cost.
type Hasher struct {
	Compares atomic.Int64
	// Busy makes Hold and Compare answer as when no comparison slot is
	// free; BusyFor makes Compare do so for that password or hash alone.
	// A comparison under a Hold is never busy (its slot is held).
	Busy    bool
	BusyFor string
	Holds   atomic.Int64
	// Admitted are the hashes Admit was given.
	Admitted []string
	mu       sync.Mutex
}

var _ ports.PasswordHasher = (*Hasher)(nil)

// Hash returns "h:" + pw.
func (h *Hasher) Hash(pw string) (string, error) { return "h:" + pw, nil }

// Compare checks pw against hash.
func (h *Hasher) Compare(ctx context.Context, hash, pw string) error {
	if ctx.Value(heldSlot{}) == nil && (h.Busy || h.BusyFor != "" && (pw == h.BusyFor || hash == h.BusyFor)) {
		e := domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", "temporarily_unavailable")
		e.RetryAfter = 1
		return e
	}
	h.Compares.Add(1)
	if hash != "h:"+pw && hash != "old:"+pw {
		return errors.New("mismatch")
	}
	return nil
}

// heldSlot marks a context under a Hold.
type heldSlot struct{}

// Hold holds a comparison slot (ports.SlotHolder): busy when Busy.
func (h *Hasher) Hold(ctx context.Context) (context.Context, func(), error) {
	if h.Busy {
		e := domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", "temporarily_unavailable")
		e.RetryAfter = 1
		return ctx, func() {}, e
	}
	h.Holds.Add(1)
	return context.WithValue(ctx, heldSlot{}, true), func() {}, nil
}

// Dummy is a hash nothing matches.
func (h *Hasher) Dummy() string { return "h:\x00dummy" }

// Admit records hash in Admitted.
func (h *Hasher) Admit(hash string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.Admitted = append(h.Admitted, hash)
}

// NeedsRehash is true for "old:" hashes.
func (h *Hasher) NeedsRehash(hash string) bool { return strings.HasPrefix(hash, "old:") }

// Keys "signs" a token as "tok:" + subject + ":" + jti and verifies it by
// looking the claims up; Verifies counts verifications.
type Keys struct {
	mu       sync.Mutex
	issued   map[string]domain.Claims
	Verifies atomic.Int64
}

var (
	_ ports.TokenIssuer   = (*Keys)(nil)
	_ ports.TokenVerifier = (*Keys)(nil)
)

// NewKeys returns keys that have issued nothing.
func NewKeys() *Keys { return &Keys{issued: map[string]domain.Claims{}} }

// Issue returns a token for c.
func (k *Keys) Issue(c domain.Claims) (string, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	tok := "tok:" + c.Subject + ":" + c.ID
	k.issued[tok] = c
	return tok, nil
}

// Verify returns the claims of a token Issue made.
func (k *Keys) Verify(tok string) (domain.Claims, error) {
	k.Verifies.Add(1)
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.issued[tok]
	if !ok {
		e := domain.NewError(domain.ErrInvalidToken, "invalid_token", domain.MsgInvalidToken)
		e.Detail = "signature"
		return domain.Claims{}, e
	}
	return c, nil
}

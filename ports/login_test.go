package ports_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

type memUsers struct{ users map[string]domain.User }

func (m *memUsers) CreateUser(_ context.Context, u domain.User) error {
	if _, ok := m.users[u.Name]; ok {
		return domain.ErrConflict
	}
	m.users[u.Name] = u
	return nil
}

func (m *memUsers) GetUser(_ context.Context, name string) (domain.User, error) {
	u, ok := m.users[name]
	if !ok {
		return domain.User{}, domain.ErrNotFound
	}
	return u, nil
}

func (m *memUsers) SetActive(_ context.Context, name string, active bool) error {
	u, ok := m.users[name]
	if !ok {
		return domain.ErrNotFound
	}
	u.Active = active
	m.users[name] = u
	return nil
}

func (m *memUsers) ListUsers(context.Context) ([]domain.User, error) { return nil, nil }

func (m *memUsers) SetPasswordHash(_ context.Context, name, hash string) error {
	u, ok := m.users[name]
	if !ok {
		return domain.ErrNotFound
	}
	u.PasswordHash = hash
	m.users[name] = u
	return nil
}

// plainHasher "hashes" by prefixing and counts comparisons, so the test
// can see that unknown users pay one comparison like everyone else.
type plainHasher struct{ compares int }

func (h *plainHasher) Hash(pw string) (string, error) { return "h:" + pw, nil }
func (h *plainHasher) Compare(hash, pw string) error {
	h.compares++
	if hash != "h:"+pw && hash != "old:"+pw {
		return errors.New("mismatch")
	}
	return nil
}
func (h *plainHasher) Dummy() string { return "h:\x00dummy" }

// NeedsRehash: "old:" hashes stand for imported hashes of another cost.
func (h *plainHasher) NeedsRehash(hash string) bool { return strings.HasPrefix(hash, "old:") }

// claimsIssuer "signs" by returning the subject, and verifies likewise.
type claimsIssuer struct{ last domain.Claims }

func (c *claimsIssuer) Issue(cl domain.Claims) (string, error) {
	c.last = cl
	return "tok:" + cl.Subject, nil
}
func (c *claimsIssuer) Verify(tok string) (domain.Claims, error) {
	if !strings.HasPrefix(tok, "tok:") {
		return domain.Claims{}, domain.NewError(domain.ErrInvalidToken, "invalid_token", domain.MsgInvalidToken)
	}
	return c.last, nil
}

func TestLoginAndAuthenticate(t *testing.T) {
	ctx := context.Background()
	users := &memUsers{users: map[string]domain.User{}}
	hasher := &plainHasher{}
	clock := &fixedClock{t: time.Now()}
	svc := &ports.Users{Store: users, Hasher: hasher, Clock: clock}
	if _, err := svc.Add(ctx, "acme", "900123456-8", "correct horse battery"); err != nil {
		t.Fatal(err)
	}
	if _, err := svc.Add(ctx, "acme", "900123456", "correct horse battery"); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("duplicate user: %v", err)
	}
	if _, err := svc.Add(ctx, "short", "900123456", "short"); !errors.Is(err, domain.ErrInvalidInput) {
		t.Errorf("short password accepted: %v", err)
	}
	issuer := &claimsIssuer{}
	login := &ports.Login{Users: users, Hasher: hasher, Issuer: issuer, Policy: domain.DefaultTokenPolicy(), Clock: clock}
	auth := &ports.Auth{Exchanger: login, Verifier: issuer, Policy: domain.DefaultTokenPolicy(), Users: users, Clock: clock}

	tok, claims, err := auth.Token(ctx, "acme", "correct horse battery", "127.0.0.1")
	if err != nil || tok != "tok:acme" || claims.NIT != "900123456-8" {
		t.Fatalf("Token = %q %+v %v", tok, claims, err)
	}
	for _, tt := range []struct{ user, pw string }{{"acme", "wrong"}, {"nobody", "correct horse battery"}, {"", "x"}} {
		before := hasher.compares
		if _, _, err := auth.Token(ctx, tt.user, tt.pw, "127.0.0.1"); !errors.Is(err, domain.ErrInvalidClient) {
			t.Errorf("Token(%q) = %v, want ErrInvalidClient", tt.user, err)
		}
		if tt.user != "" && hasher.compares != before+1 {
			t.Errorf("Token(%q) made %d comparisons, want 1", tt.user, hasher.compares-before)
		}
	}
	p, err := auth.Authenticate(ctx, tok)
	if err != nil || p.User != "acme" || p.NIT != "900123456-8" {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	if err := svc.SetActive(ctx, "acme", false); err != nil {
		t.Fatal(err)
	}
	if _, err := auth.Authenticate(ctx, tok); !errors.Is(err, domain.ErrInvalidToken) {
		t.Errorf("deactivated user's token: %v, want ErrInvalidToken", err)
	}
	if _, _, err := auth.Token(ctx, "acme", "correct horse battery", "127.0.0.1"); !errors.Is(err, domain.ErrInvalidClient) {
		t.Errorf("deactivated user's login: %v, want ErrInvalidClient", err)
	}
}

// countingVerifier counts signature verifications.
type countingVerifier struct {
	claimsIssuer
	calls int
}

func (c *countingVerifier) Verify(tok string) (domain.Claims, error) {
	c.calls++
	return c.claimsIssuer.Verify(tok)
}

func TestTokenCacheAndStaleness(t *testing.T) {
	ctx := context.Background()
	users := &memUsers{users: map[string]domain.User{}}
	clock := &fixedClock{t: time.Now()}
	users.users["acme"] = domain.User{Name: "acme", NIT: "900123456", Active: true}
	v := &countingVerifier{}
	v.last = domain.DefaultTokenPolicy().NewClaims(users.users["acme"], clock.Now(), "j1")
	auth := &ports.Auth{Verifier: v, Policy: domain.DefaultTokenPolicy(), Users: users, Clock: clock,
		Tokens: &ports.TokenCache{Max: 2}, Statuses: &ports.UserStatusCache{Staleness: 30 * time.Second}}
	for i := 0; i < 5; i++ {
		if _, err := auth.Authenticate(ctx, "tok:acme"); err != nil {
			t.Fatal(err)
		}
	}
	if v.calls != 1 {
		t.Fatalf("%d signature verifications for one token used 5 times, want 1", v.calls)
	}
	// Deactivation: seen within the staleness bound, not before.
	_ = users.SetActive(ctx, "acme", false)
	clock.Add(10 * time.Second)
	if _, err := auth.Authenticate(ctx, "tok:acme"); err != nil {
		t.Fatalf("within staleness the cached status may still hold: %v", err)
	}
	clock.Add(21 * time.Second)
	if _, err := auth.Authenticate(ctx, "tok:acme"); !errors.Is(err, domain.ErrInvalidToken) {
		t.Fatalf("31 s after deactivation: %v, want ErrInvalidToken", err)
	}
	// An expired token is refused even when cached.
	_ = users.SetActive(ctx, "acme", true)
	clock.Add(25 * time.Hour)
	if _, err := auth.Authenticate(ctx, "tok:acme"); !errors.Is(err, domain.ErrInvalidToken) {
		t.Fatalf("expired cached token: %v", err)
	}
	// The cache stays within its bound.
	for i := 0; i < 10; i++ {
		v.last = domain.DefaultTokenPolicy().NewClaims(users.users["acme"], clock.Now(), "j")
		_, _ = auth.Authenticate(ctx, "tok:acme"+string(rune('a'+i)))
	}
	if n := auth.Tokens.Len(); n > 2 {
		t.Fatalf("cache holds %d tokens, bound is 2", n)
	}
}

// TestLoginRehashesImportedHashes: a hash of another cost (an imported PHP
// hash) is replaced at the first successful login, so that later wrong
// passwords cost what unknown users cost.
func TestLoginRehashesImportedHashes(t *testing.T) {
	users := &memUsers{users: map[string]domain.User{"legacy": {Name: "legacy", PasswordHash: "old:secret", Active: true}}}
	login := &ports.Login{Users: users, Hasher: &plainHasher{}, Issuer: &claimsIssuer{}, Policy: domain.DefaultTokenPolicy(), Clock: &fixedClock{t: time.Now()}}
	if _, err := login.Exchange(context.Background(), "legacy", "wrong"); !errors.Is(err, domain.ErrInvalidClient) {
		t.Fatal(err)
	}
	if users.users["legacy"].PasswordHash != "old:secret" {
		t.Fatal("a failed login changed the hash")
	}
	if _, err := login.Exchange(context.Background(), "legacy", "secret"); err != nil {
		t.Fatal(err)
	}
	if got := users.users["legacy"].PasswordHash; got != "h:secret" {
		t.Fatalf("hash after login = %q, want it rehashed", got)
	}
}

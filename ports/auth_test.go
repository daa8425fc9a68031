package ports_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

const goodPassword = "correct horse battery"

// authFixture is the built-in login behind Auth, on fakes and the real
// in-memory throttle.
type authFixture struct {
	users    *fakes.Users
	hasher   *fakes.Hasher
	keys     *fakes.Keys
	clock    *fakes.Clock
	throttle *memstate.Throttle
	auth     *ports.Auth
}

// newAuth is the fixture with user acme, under authOptions.
func newAuth(t *testing.T) *authFixture {
	return newAuthAnd(t, func(*ports.AuthOptions) {})
}

// newAuthAnd is newAuth with the options changed by opt.
func newAuthAnd(t *testing.T, opt func(*ports.AuthOptions)) *authFixture {
	t.Helper()
	f := &authFixture{users: fakes.NewUsers(), hasher: &fakes.Hasher{}, keys: fakes.NewKeys(), clock: fakes.NewClock(t0)}
	if _, err := newUsers(t, f).Add(context.Background(), "acme", "900123456-8", goodPassword); err != nil {
		t.Fatal(err)
	}
	var err error
	if f.throttle, err = memstate.NewThrottle(1000); err != nil {
		t.Fatal(err)
	}
	o := authOptions(f)
	opt(&o)
	f.auth = newAuthWith(t, f, o)
	return f
}

func (f *authFixture) token(user, pw, addr string) (ports.Issued, error) {
	return f.auth.Token(context.Background(), ports.LoginAttempt{User: user, Password: pw, Addr: addr})
}

func TestLoginAndAuthenticate(t *testing.T) {
	ctx := context.Background()
	f := newAuth(t)
	svc := newUsers(t, f)
	if _, err := svc.Add(ctx, "acme", "900123456", goodPassword); !errors.Is(err, domain.ErrConflict) {
		t.Errorf("duplicate user: %v", err)
	}
	if _, err := svc.Add(ctx, "short", "900123456", "short"); !errors.Is(err, domain.ErrInvalidInput) {
		t.Errorf("short password accepted: %v", err)
	}
	got, err := f.token("acme", goodPassword, "10.0.0.1")
	if err != nil || got.Claims.NIT != "900123456-8" || got.ExpiresIn != 24*time.Hour || got.LogUser != "acme" {
		t.Fatalf("Token = %+v %v", got, err)
	}
	for _, tt := range []struct{ user, pw string }{{"acme", "wrong"}, {"nobody", goodPassword}} {
		before := f.hasher.Compares.Load()
		if _, err := f.token(tt.user, tt.pw, "10.0.0.1"); !errors.Is(err, domain.ErrInvalidClient) {
			t.Errorf("Token(%q) = %v, want ErrInvalidClient", tt.user, err)
		}
		if n := f.hasher.Compares.Load() - before; n != 1 {
			t.Errorf("Token(%q) made %d comparisons, want 1 (unknown users cost the same)", tt.user, n)
		}
	}
	p, err := f.auth.Authenticate(ctx, got.Token)
	if err != nil || p.User != "acme" || p.NIT != "900123456-8" {
		t.Fatalf("Authenticate = %+v, %v", p, err)
	}
	if err := svc.SetActive(ctx, "acme", false); err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Authenticate(ctx, got.Token); !errors.Is(err, domain.ErrInvalidToken) {
		t.Errorf("deactivated user's token: %v, want ErrInvalidToken", err)
	}
	if _, err := f.token("acme", goodPassword, "10.0.0.1"); !errors.Is(err, domain.ErrInvalidClient) {
		t.Errorf("deactivated user's login: %v, want ErrInvalidClient", err)
	}
}

// TestLogNamesOnlyKnownUsers: a name that is no user may be a password
// typed in the wrong field; logs get its hash.
func TestLogNamesOnlyKnownUsers(t *testing.T) {
	f := newAuth(t)
	got, _ := f.token(goodPassword, "acme", "10.0.0.1")
	if strings.Contains(got.LogUser, goodPassword) || !strings.HasPrefix(got.LogUser, "sha256:") || len(got.LogUser) != len("sha256:")+12 {
		t.Errorf("unknown user logged as %q", got.LogUser)
	}
	if got, _ := f.token("acme", "wrong", "10.0.0.1"); got.LogUser != "acme" {
		t.Errorf("known user with a wrong password logged as %q", got.LogUser)
	}
}

// TestThrottleHoldsUnderConcurrency: 60 wrong passwords at once for one
// user make at most 10 password checks; 80 unknown users at once from one
// address at most 30. The rest are 429 with a Retry-After.
func TestThrottleHoldsUnderConcurrency(t *testing.T) {
	for _, tt := range []struct {
		name      string
		n, limit  int
		user, pw  func(i int) string
		sameAddr  bool
		wantCheck int64
	}{
		{"one user", 60, 10, func(int) string { return "acme" }, func(int) string { return "wrong" }, false, 10},
		{"one address", 80, 30, func(i int) string { return "nobody" + string(rune('a'+i%26)) + strings.Repeat("x", i/26) },
			func(int) string { return "whatever" }, true, 30},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newAuth(t)
			var wg sync.WaitGroup
			var mu sync.Mutex
			throttled := 0
			for i := range tt.n {
				wg.Add(1)
				go func() {
					defer wg.Done()
					addr := "10.0.1." + string(rune('0'+i%10)) + string(rune('0'+i/10))
					if tt.sameAddr {
						addr = "10.0.0.9"
					}
					_, err := f.token(tt.user(i), tt.pw(i), addr)
					var de *domain.Error
					if errors.Is(err, domain.ErrThrottled) && errors.As(err, &de) && de.RetryAfter > 0 {
						mu.Lock()
						throttled++
						mu.Unlock()
					} else if !errors.Is(err, domain.ErrInvalidClient) {
						t.Errorf("attempt %d: %v", i, err)
					}
				}()
			}
			wg.Wait()
			if got := f.hasher.Compares.Load(); got != tt.wantCheck || throttled != tt.n-tt.limit {
				t.Fatalf("%d password checks and %d 429s for %d concurrent attempts; want %d and %d",
					got, throttled, tt.n, tt.wantCheck, tt.n-tt.limit)
			}
		})
	}
}

// TestThrottleCountsFailuresOnly: successes and outages give their slot
// back; an oversized name costs no hashing and counts against the address
// only; the budget frees as the window slides.
func TestThrottleCountsFailuresOnly(t *testing.T) {
	f := newAuth(t)
	for i := range 15 {
		if _, err := f.token("acme", goodPassword, "10.0.0.1"); err != nil {
			t.Fatalf("success %d: %v", i, err)
		}
	}
	f.hasher.Busy = true
	for range 15 {
		if _, err := f.token("acme", "wrong", "10.0.0.1"); !errors.Is(err, domain.ErrUnavailable) {
			t.Fatalf("busy hasher: %v, want ErrUnavailable", err)
		}
	}
	f.hasher.Busy = false
	before := f.hasher.Compares.Load()
	for range 30 {
		if _, err := f.token(strings.Repeat("u", 65), "pw", "10.0.0.2"); !errors.Is(err, domain.ErrInvalidClient) {
			t.Fatalf("oversized name: %v", err)
		}
	}
	if f.hasher.Compares.Load() != before {
		t.Error("an oversized name was hashed")
	}
	if _, err := f.token("acme", goodPassword, "10.0.0.2"); !errors.Is(err, domain.ErrThrottled) {
		t.Errorf("31st attempt from the address: %v, want ErrThrottled", err)
	}
	// 30 attempts at one oversized name are over any user budget: had
	// they been charged to it, the name would be throttled from anywhere.
	if _, err := f.token(strings.Repeat("u", 65), "pw", "10.0.0.3"); !errors.Is(err, domain.ErrInvalidClient) {
		t.Errorf("the oversized name from a fresh address: %v; want ErrInvalidClient (no user budget charged)", err)
	}
	f.clock.Add(61 * time.Second)
	if _, err := f.token("acme", goodPassword, "10.0.0.2"); err != nil {
		t.Errorf("after the window: %v", err)
	}
}

// TestAnAttemptHoldsOneComparisonSlot: a login attempt holds one
// comparison slot for all its comparisons (ports.SlotHolder), so a busy
// hasher turns it away before any comparison, not between two (the
// twenty-first session's reviews: the raw HTTP Basic pair's comparison,
// or a rotation's previous password's, turned away busy refunded the
// first comparison's work, one a request past the address's budget; and
// counting such attempts locked a partner whose raw pair is the right one
// out while the hasher was crowded).
func TestAnAttemptHoldsOneComparisonSlot(t *testing.T) {
	ctx := context.Background()
	f := newAuth(t)
	// Comparisons under the hold are never busy: the raw pair's is made,
	// refused, and the attempt counts.
	f.hasher.BusyFor = "raw-form"
	attempt := ports.LoginAttempt{User: "acme", Password: "wrong", Raw: &ports.Credentials{User: "acme", Password: "raw-form"}, Addr: "10.0.0.1"}
	for i := range 10 {
		if _, err := f.auth.Token(ctx, attempt); !errors.Is(err, domain.ErrInvalidClient) {
			t.Fatalf("attempt %d: %v, want ErrInvalidClient (both pairs compared under one slot)", i, err)
		}
	}
	if n := f.hasher.Holds.Load(); n != 10 {
		t.Errorf("%d holds for 10 attempts, want one each", n)
	}
	if _, err := f.auth.Token(ctx, attempt); !errors.Is(err, domain.ErrThrottled) {
		t.Fatalf("11th attempt at acme: %v, want ErrThrottled", err)
	}
	// A crowded hasher turns an attempt away before any comparison: it
	// does not count, and the right raw pair logs in once it is free.
	const pw = "correct+horse+battery"
	if _, err := newUsers(t, f).Add(ctx, "plus", "900123459-1", pw); err != nil {
		t.Fatal(err)
	}
	plus := ports.LoginAttempt{User: "plus", Password: "correct horse battery", Raw: &ports.Credentials{User: "plus", Password: pw}, Addr: "10.9.9.9"}
	f.hasher.BusyFor, f.hasher.Busy = "", true
	before := f.hasher.Compares.Load()
	for i := range 15 {
		if _, err := f.auth.Token(ctx, plus); !errors.Is(err, domain.ErrUnavailable) {
			t.Fatalf("retry %d with the hasher crowded: %v, want ErrUnavailable", i, err)
		}
	}
	if f.hasher.Compares.Load() != before {
		t.Error("an attempt turned away busy was compared")
	}
	f.hasher.Busy = false
	if _, err := f.auth.Token(ctx, plus); err != nil {
		t.Fatalf("the right raw pair once the hasher is free: %v", err)
	}
	// A rotation's previous password is compared under the same slot.
	f.clock.Add(16 * time.Minute) // acme's and the addresses' windows pass
	u, err := f.users.GetUser(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	if err := f.users.RotatePassword(ctx, "acme", u.PasswordHash, domain.Rotation{NewHash: "h:a-new-secret", PreviousHash: u.PasswordHash,
		RotatedAt: f.clock.Now(), PreviousUntil: f.clock.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	f.hasher.BusyFor = u.PasswordHash
	for i := range 10 {
		if _, err := f.token("acme", "a wrong guess", "10.7.7.7"); !errors.Is(err, domain.ErrInvalidClient) {
			t.Fatalf("attempt %d against acme in its rotation's overlap: %v", i, err)
		}
	}
	if _, err := f.token("acme", "a wrong guess", "10.7.7.8"); !errors.Is(err, domain.ErrThrottled) {
		t.Errorf("acme after 10 counted attempts in its overlap: %v, want ErrThrottled", err)
	}
}

func TestTokenCacheAndStaleness(t *testing.T) {
	ctx := context.Background()
	tokens, _ := memstate.NewTokenCache(2)
	statuses, _ := memstate.NewUserStatusCache(10)
	f := newAuthAnd(t, func(o *ports.AuthOptions) { o.Tokens, o.Statuses, o.Staleness = tokens, statuses, 30*time.Second })
	issued, err := f.token("acme", goodPassword, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	before := f.keys.Verifies.Load()
	for range 5 {
		if _, err := f.auth.Authenticate(ctx, issued.Token); err != nil {
			t.Fatal(err)
		}
	}
	if n := f.keys.Verifies.Load() - before; n != 0 {
		t.Fatalf("%d signature verifications for a token used 5 times after its issue, want 0", n)
	}
	// Deactivation: seen within the staleness bound, not before.
	_ = f.users.SetActive(ctx, "acme", false)
	f.clock.Add(10 * time.Second)
	if _, err := f.auth.Authenticate(ctx, issued.Token); err != nil {
		t.Fatalf("within staleness the cached status may still hold: %v", err)
	}
	f.clock.Add(21 * time.Second)
	if _, err := f.auth.Authenticate(ctx, issued.Token); !errors.Is(err, domain.ErrInvalidToken) {
		t.Fatalf("31 s after deactivation: %v, want ErrInvalidToken", err)
	}
	// Activation: a token issued after the cached "inactive" is let in at
	// once, not after the staleness bound.
	_ = f.users.SetActive(ctx, "acme", true)
	f.clock.Add(2 * time.Second)
	fresh, err := f.token("acme", goodPassword, "10.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.auth.Authenticate(ctx, fresh.Token); err != nil {
		t.Fatalf("new token right after activation: %v", err)
	}
	// An expired token is refused even when cached.
	f.clock.Add(25 * time.Hour)
	if _, err := f.auth.Authenticate(ctx, fresh.Token); !errors.Is(err, domain.ErrInvalidToken) {
		t.Fatalf("expired cached token: %v", err)
	}
	if n := tokens.Len(); n > 2 {
		t.Fatalf("cache holds %d tokens, bound is 2", n)
	}
}

// TestLoginRehashesImportedHashes: a hash of another cost (an imported PHP
// hash) is replaced at the first successful login, so that later wrong
// passwords cost what unknown users cost.
func TestLoginRehashesImportedHashes(t *testing.T) {
	users := fakes.NewUsers(domain.User{Name: "legacy", PasswordHash: "old:secret", Active: true})
	login := newLogin(t, users, &fakes.Hasher{}, fakes.NewKeys(), fakes.NewClock(t0))
	if _, err := login.Exchange(context.Background(), "legacy", "wrong"); !errors.Is(err, domain.ErrInvalidClient) {
		t.Fatal(err)
	}
	if u, _ := users.GetUser(context.Background(), "legacy"); u.PasswordHash != "old:secret" {
		t.Fatal("a failed login changed the hash")
	}
	if _, err := login.Exchange(context.Background(), "legacy", "secret"); err != nil {
		t.Fatal(err)
	}
	if u, _ := users.GetUser(context.Background(), "legacy"); u.PasswordHash != "h:secret" {
		t.Fatalf("hash after login = %q, want it rehashed", u.PasswordHash)
	}
}

// TestIPv6AddressesShareTheirSlash64: one machine can use any address of
// its /64, so the address budget is the /64's; another /64 and IPv4
// addresses keep their own.
func TestIPv6AddressesShareTheirSlash64(t *testing.T) {
	f := newAuth(t)
	for i := range 30 {
		addr := fmt.Sprintf("2001:db8:1:2::%x", i+1)
		if _, err := f.token(fmt.Sprintf("nobody%d", i), "wrong", addr); !errors.Is(err, domain.ErrInvalidClient) {
			t.Fatalf("attempt %d from %s: %v", i, addr, err)
		}
	}
	if _, err := f.token("acme", goodPassword, "2001:db8:1:2:ffff::9"); !errors.Is(err, domain.ErrThrottled) {
		t.Errorf("a fresh address in the spent /64: %v; want ErrThrottled", err)
	}
	for _, addr := range []string{"2001:db8:1:3::1", "10.0.0.9", "::ffff:10.0.0.8"} {
		if _, err := f.token("acme", goodPassword, addr); err != nil {
			t.Errorf("%s: %v; want its own budget", addr, err)
		}
	}
}

// countingThrottle counts the calls that would reach a shared throttle's
// database: Check reads, Take and Cancel write.
type countingThrottle struct {
	ports.LoginThrottle
	checks, takes, cancels int
}

func (c *countingThrottle) Check(ctx context.Context, k ports.ThrottleKey, limit int, w time.Duration, now time.Time) (ports.Verdict, error) {
	c.checks++
	return c.LoginThrottle.Check(ctx, k, limit, w, now)
}

func (c *countingThrottle) Take(ctx context.Context, k ports.ThrottleKey, limit int, w time.Duration, now time.Time) (ports.Slot, error) {
	c.takes++
	return c.LoginThrottle.Take(ctx, k, limit, w, now)
}

func (c *countingThrottle) Cancel(ctx context.Context, r ports.Slot) error {
	c.cancels++
	return c.LoginThrottle.Cancel(ctx, r)
}

// TestRefusedLoginOnlyReads: once a user name's budget (or the address's)
// is spent, an attempt is refused after at most two reads of the
// throttle, and takes, gives back or hashes nothing (contract §7,
// "Failed logins cost the store little").
func TestRefusedLoginOnlyReads(t *testing.T) {
	var counter *countingThrottle
	f := newAuthAnd(t, func(o *ports.AuthOptions) {
		counter = &countingThrottle{LoginThrottle: o.Throttle}
		o.Throttle = counter
	})
	for range 10 {
		if _, err := f.token("acme", "wrong", "10.0.0.1"); !errors.Is(err, domain.ErrInvalidClient) {
			t.Fatalf("wrong password: %v", err)
		}
	}
	for _, addr := range []string{"10.0.0.1", "10.0.0.2"} {
		*counter = countingThrottle{LoginThrottle: counter.LoginThrottle}
		before := f.hasher.Compares.Load()
		_, err := f.token("acme", "wrong", addr)
		var de *domain.Error
		if !errors.As(err, &de) || !errors.Is(err, domain.ErrThrottled) || de.Detail != "user" {
			t.Fatalf("11th attempt at acme from %s: %v, want ErrThrottled (user)", addr, err)
		}
		if counter.checks > 2 || counter.takes+counter.cancels > 0 || f.hasher.Compares.Load() != before {
			t.Errorf("refused attempt from %s: %d checks, %d takes, %d cancels, %d hashes; want at most 2 checks and nothing else",
				addr, counter.checks, counter.takes, counter.cancels, f.hasher.Compares.Load()-before)
		}
	}
	for i := range 30 {
		_, _ = f.token(fmt.Sprintf("nobody-%d", i), "guess", "10.0.0.3")
	}
	*counter = countingThrottle{LoginThrottle: counter.LoginThrottle}
	if _, err := f.token("nobody-x", "guess", "10.0.0.3"); !errors.Is(err, domain.ErrThrottled) {
		t.Fatalf("31st attempt from the address: %v, want ErrThrottled", err)
	}
	if counter.checks != 1 || counter.takes+counter.cancels > 0 {
		t.Errorf("refused for the address: %d checks, %d takes, %d cancels; want 1 check", counter.checks, counter.takes, counter.cancels)
	}
}

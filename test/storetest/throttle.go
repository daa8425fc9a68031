package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
)

// Pruner is a throttle that deletes what has left every window.
type Pruner interface {
	Prune(ctx context.Context, now time.Time, limit int) (int64, error)
}

// RunLoginThrottle is the one suite every ports.LoginThrottle runs: the
// budget, the sliding window (with an injected now), RetryAfter, Cancel,
// byte-exact keys and an atomic budget under concurrent Takes.
func RunLoginThrottle(t *testing.T, open func(testing.TB) ports.LoginThrottle) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	const window = time.Minute

	take := func(t *testing.T, th ports.LoginThrottle, key string, limit int, now time.Time) ports.Reservation {
		t.Helper()
		r, err := th.Take(ctx, key, limit, window, now)
		if err != nil {
			t.Fatalf("Take(%q) at %s: %v", key, now.Sub(t0), err)
		}
		return r
	}

	t.Run("budget and RetryAfter", func(t *testing.T) {
		th := open(t)
		for i := 0; i < 3; i++ {
			if r := take(t, th, "user:acme", 3, t0); !r.OK || r.ID == "" || r.Key != "user:acme" {
				t.Fatalf("take %d = %+v, want a reservation", i, r)
			}
		}
		r := take(t, th, "user:acme", 3, t0.Add(15*time.Second))
		if r.OK || r.RetryAfter != 45*time.Second {
			t.Fatalf("take over the budget = %+v, want refused with RetryAfter 45s", r)
		}
	})

	t.Run("sliding window", func(t *testing.T) {
		th := open(t)
		for _, at := range []time.Duration{0, 20 * time.Second, 40 * time.Second} {
			if r := take(t, th, "addr:192.0.2.1", 3, t0.Add(at)); !r.OK {
				t.Fatalf("take at %s refused: %+v", at, r)
			}
		}
		if r := take(t, th, "addr:192.0.2.1", 3, t0.Add(50*time.Second)); r.OK || r.RetryAfter != 10*time.Second {
			t.Fatalf("at 50s = %+v, want refused for 10s", r)
		}
		// At 60 s the first attempt has left the window.
		if r := take(t, th, "addr:192.0.2.1", 3, t0.Add(60*time.Second)); !r.OK {
			t.Fatalf("at 60s = %+v, want a slot", r)
		}
		if r := take(t, th, "addr:192.0.2.1", 3, t0.Add(61*time.Second)); r.OK || r.RetryAfter != 19*time.Second {
			t.Fatalf("at 61s = %+v, want refused for 19s", r)
		}
		// A stricter rule on the same key counts the same attempts.
		if r := take(t, th, "addr:192.0.2.1", 2, t0.Add(61*time.Second)); r.OK || r.RetryAfter != 39*time.Second {
			t.Fatalf("limit 2 at 61s = %+v, want refused for 39s", r)
		}
	})

	t.Run("cancel gives the slot back", func(t *testing.T) {
		th := open(t)
		var held []ports.Reservation
		for i := 0; i < 2; i++ {
			held = append(held, take(t, th, "user:acme", 2, t0))
		}
		if r := take(t, th, "user:acme", 2, t0); r.OK {
			t.Fatal("budget not spent")
		}
		if err := th.Cancel(ctx, held[0]); err != nil {
			t.Fatal(err)
		}
		if err := th.Cancel(ctx, held[0]); err != nil {
			t.Fatalf("second cancel: %v", err)
		}
		if err := th.Cancel(ctx, ports.Reservation{Key: "user:acme", ID: "0123456789abcdef01234567"}); err != nil {
			t.Fatalf("cancel of a stranger: %v", err)
		}
		if r := take(t, th, "user:acme", 2, t0); !r.OK {
			t.Fatalf("after cancel = %+v, want a slot", r)
		}
		if r := take(t, th, "user:acme", 2, t0); r.OK {
			t.Fatal("a cancel freed more than one slot")
		}
	})

	t.Run("keys are byte-exact", func(t *testing.T) {
		th := open(t)
		for i := 0; i < 2; i++ {
			take(t, th, "user:acme", 2, t0)
		}
		for _, k := range []string{"user:ACME", "user:Acme", "user:acmé", "user:acme   ", "user: acme", "addr:acme"} {
			if r := take(t, th, k, 2, t0); !r.OK {
				t.Errorf("key %q shares acme's budget: %+v", k, r)
			}
		}
	})

	t.Run("60 concurrent takes: exactly the limit", func(t *testing.T) {
		th := open(t)
		if ok := concurrentTakes(t, []ports.LoginThrottle{th}, 60, 10, t0); ok != 10 {
			t.Fatalf("%d reservations of 60 concurrent takes, want exactly 10", ok)
		}
	})

	t.Run("prune deletes only what left every window, bounded", func(t *testing.T) {
		th := open(t)
		p, ok := th.(Pruner)
		if !ok {
			t.Skip("no prune: the adapter bounds its state otherwise")
		}
		for i := 0; i < 5; i++ {
			take(t, th, fmt.Sprintf("user:old-%d", i), 3, t0)
		}
		take(t, th, "user:recent", 3, t0.Add(30*time.Second))
		n, err := p.Prune(ctx, t0.Add(window+time.Second), 3)
		if err != nil || n == 0 || n > 6 {
			t.Fatalf("Prune = %d, %v; want some, at most 3 attempts and 3 keys", n, err)
		}
		for n > 0 {
			if n, err = p.Prune(ctx, t0.Add(window+time.Second), 3); err != nil {
				t.Fatal(err)
			}
		}
		if r := take(t, th, "user:recent", 1, t0.Add(window+time.Second)); r.OK {
			t.Fatal("prune removed an attempt still in its window")
		}
	})
}

// RunLoginThrottleReplicas checks that two throttles opened on one
// backing store (two replicas) allow one budget together.
func RunLoginThrottleReplicas(t *testing.T, open func(testing.TB) (a, b ports.LoginThrottle)) {
	ctx := context.Background()
	t0 := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	a, b := open(t)
	if ok := concurrentTakes(t, []ports.LoginThrottle{a, b}, 60, 10, t0); ok != 10 {
		t.Fatalf("%d reservations of 60 concurrent takes on two replicas, want exactly 10", ok)
	}
	// A slot given back on one replica is free on the other.
	r, err := b.Take(ctx, "user:other", 1, time.Minute, t0)
	if err != nil || !r.OK {
		t.Fatalf("take on b: %+v, %v", r, err)
	}
	if r, _ := a.Take(ctx, "user:other", 1, time.Minute, t0); r.OK {
		t.Fatal("replica a does not see b's reservation")
	}
	if err := a.Cancel(ctx, r); err != nil {
		t.Fatal(err)
	}
	if r, err := a.Take(ctx, "user:other", 1, time.Minute, t0); err != nil || !r.OK {
		t.Fatalf("after cancel: %+v, %v", r, err)
	}
}

// concurrentTakes races n Takes of one key, spread over throttles, and
// counts the reservations.
func concurrentTakes(t *testing.T, ths []ports.LoginThrottle, n, limit int, now time.Time) int {
	var ok atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, err := ths[i%len(ths)].Take(context.Background(), "user:acme", limit, time.Minute, now)
			if err != nil {
				t.Errorf("take %d: %v", i, err)
				return
			}
			if r.OK {
				ok.Add(1)
			}
		}()
	}
	close(start)
	wg.Wait()
	return int(ok.Load())
}

// SQLiteThrottle is the database throttle of a fresh SQLite store.
func SQLiteThrottle(tb testing.TB) ports.LoginThrottle {
	return gormstore.NewThrottle(MustOpenSQLite(tb))
}

// SQLiteThrottles are two throttles of two stores on one SQLite file.
func SQLiteThrottles(tb testing.TB) (ports.LoginThrottle, ports.LoginThrottle) {
	path := SQLitePath(tb)
	return gormstore.NewThrottle(MustOpen(tb, gormstore.SQLite, path, gormstore.Options{})),
		gormstore.NewThrottle(MustOpen(tb, gormstore.SQLite, path, gormstore.Options{}))
}

// MySQLThrottle is the database throttle of a store on a fresh database.
func MySQLThrottle(tb testing.TB) ports.LoginThrottle {
	return gormstore.NewThrottle(MustOpenMySQL(tb))
}

// MySQLThrottles are two throttles of two stores on one MySQL database.
func MySQLThrottles(tb testing.TB) (ports.LoginThrottle, ports.LoginThrottle) {
	dsn := MustCreateDatabase(tb)
	return gormstore.NewThrottle(MustOpen(tb, gormstore.MySQL, dsn, gormstore.Options{})),
		gormstore.NewThrottle(MustOpen(tb, gormstore.MySQL, dsn, gormstore.Options{}))
}

package storetest

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/ports"
)

// Pruner is a throttle that deletes what has left every window.
type Pruner interface {
	Prune(ctx context.Context, limit int) (int64, error)
}

// ThrottleSubject is a throttle under test and a way to let time pass for
// it: the memory throttle's time is the now its callers pass; the
// database throttle's windows follow the database's clock (contract §7,
// "Replicas share one clock"), so time passes for it when every time it
// stored moves back.
type ThrottleSubject struct {
	ports.LoginThrottle
	Now  func() time.Time      // what callers pass as now
	Pass func(d time.Duration) // lets d pass for the throttle
}

// userKey and addrKey are the keys of a user name's and an address's budget.
func userKey(name string) ports.ThrottleKey {
	return ports.ThrottleKey{Kind: ports.ThrottleUser, Value: name}
}
func addrKey(a string) ports.ThrottleKey {
	return ports.ThrottleKey{Kind: ports.ThrottleAddr, Value: a}
}

// near tells whether a RetryAfter is want, less at most the few moments
// the test itself took (a database throttle's clock runs meanwhile).
func near(got, want time.Duration) bool { return got <= want && got > want-5*time.Second }

// window is the throttle suite's window.
const window = time.Minute

// take takes a slot of key's budget of limit in the suite's window, now.
func take(t *testing.T, th ThrottleSubject, key ports.ThrottleKey, limit int) ports.Slot {
	t.Helper()
	r, err := th.Take(context.Background(), key, limit, window, th.Now())
	if err != nil {
		t.Fatalf("Take(%v): %v", key, err)
	}
	return r
}

// RunLoginThrottle is the one suite every ports.LoginThrottle runs: the
// budget, the sliding window, RetryAfter, Cancel, byte-exact keys and an
// atomic budget under concurrent Takes, each on a throttle of its own, in
// parallel.
func RunLoginThrottle(t *testing.T, open func(testing.TB) ThrottleSubject) {
	runEach(t, open, throttleTests)
}

// throttleTests are the login-throttle suite, by name.
var throttleTests = []namedTest[ThrottleSubject]{
	{"budget and RetryAfter", testThrottleBudget},
	{"Check reads and reserves nothing", testThrottleCheck},
	{"sliding window", testThrottleSlidingWindow},
	{"cancel gives the slot back", testThrottleCancel},
	{"keys are byte-exact", testThrottleKeysByteExact},
	{"60 concurrent takes: exactly the limit", testThrottleConcurrentTakes},
	{"prune deletes only what left every window, bounded", testThrottlePrune},
}

// testThrottleBudget: a budget of 3 takes 3; the 4th is refused with the RetryAfter its window leaves.
func testThrottleBudget(t *testing.T, th ThrottleSubject) {
	for i := 0; i < 3; i++ {
		if r := take(t, th, userKey("acme"), 3); !r.OK || r.ID == "" || r.Key != userKey("acme") {
			t.Fatalf("take %d = %+v, want a slot", i, r)
		}
	}
	th.Pass(15 * time.Second)
	r := take(t, th, userKey("acme"), 3)
	if r.OK || !near(r.RetryAfter, 45*time.Second) {
		t.Fatalf("take over the budget = %+v, want refused with RetryAfter 45s", r)
	}
}

// testThrottleCheck: Check reads and takes nothing.
func testThrottleCheck(t *testing.T, th ThrottleSubject) {
	ctx := context.Background()
	check := func(key ports.ThrottleKey) ports.Verdict {
		t.Helper()
		r, err := th.Check(ctx, key, 2, window, th.Now())
		if err != nil {
			t.Fatalf("Check(%v): %v", key, err)
		}
		return r
	}
	for range 5 {
		// A Verdict has no slot to give back: that Check takes none is
		// its type's; the reads below show it counted nothing either.
		if r := check(userKey("acme")); !r.OK {
			t.Fatalf("Check of an unused budget = %+v, want OK", r)
		}
	}
	take(t, th, userKey("acme"), 2)
	if r := check(userKey("acme")); !r.OK {
		t.Fatalf("Check after 1 of 2 taken = %+v, want OK", r)
	}
	take(t, th, userKey("acme"), 2)
	th.Pass(10 * time.Second)
	if r := check(userKey("acme")); r.OK || !near(r.RetryAfter, 50*time.Second) {
		t.Fatalf("Check of a spent budget = %+v, want refused with RetryAfter 50s", r)
	}
	if r := check(userKey("ACME")); !r.OK {
		t.Fatalf("Check of another name = %+v, want OK", r)
	}
	if _, err := th.Check(ctx, ports.ThrottleKey{Kind: 99, Value: "x"}, 2, window, th.Now()); err == nil {
		t.Fatal("Check of an unknown kind: no error")
	}
}

// testThrottleSlidingWindow: attempts leave the budget one by one as they leave the window, and a stricter rule counts the same attempts.
func testThrottleSlidingWindow(t *testing.T, th ThrottleSubject) {
	for i := range 3 {
		if i > 0 {
			th.Pass(20 * time.Second)
		}
		if r := take(t, th, addrKey("192.0.2.1"), 3); !r.OK {
			t.Fatalf("take at %ds refused: %+v", 20*i, r)
		}
	}
	th.Pass(10 * time.Second)
	if r := take(t, th, addrKey("192.0.2.1"), 3); r.OK || !near(r.RetryAfter, 10*time.Second) {
		t.Fatalf("at 50s = %+v, want refused for 10s", r)
	}
	// At 60 s the first attempt has left the window.
	th.Pass(10 * time.Second)
	if r := take(t, th, addrKey("192.0.2.1"), 3); !r.OK {
		t.Fatalf("at 60s = %+v, want a slot", r)
	}
	th.Pass(time.Second)
	if r := take(t, th, addrKey("192.0.2.1"), 3); r.OK || !near(r.RetryAfter, 19*time.Second) {
		t.Fatalf("at 61s = %+v, want refused for 19s", r)
	}
	// A stricter rule on the same key counts the same attempts.
	if r := take(t, th, addrKey("192.0.2.1"), 2); r.OK || !near(r.RetryAfter, 39*time.Second) {
		t.Fatalf("limit 2 at 61s = %+v, want refused for 39s", r)
	}
}

// testThrottleCancel: cancel gives the slot back.
func testThrottleCancel(t *testing.T, th ThrottleSubject) {
	ctx := context.Background()
	var held []ports.Slot
	for i := 0; i < 2; i++ {
		held = append(held, take(t, th, userKey("acme"), 2))
	}
	if r := take(t, th, userKey("acme"), 2); r.OK {
		t.Fatal("budget not spent")
	}
	if err := th.Cancel(ctx, held[0]); err != nil {
		t.Fatal(err)
	}
	if err := th.Cancel(ctx, held[0]); err != nil {
		t.Fatalf("second cancel: %v", err)
	}
	if err := th.Cancel(ctx, ports.Slot{Key: userKey("acme"), ID: "0123456789abcdef01234567"}); err != nil {
		t.Fatalf("cancel of a stranger: %v", err)
	}
	if r := take(t, th, userKey("acme"), 2); !r.OK {
		t.Fatalf("after cancel = %+v, want a slot", r)
	}
	if r := take(t, th, userKey("acme"), 2); r.OK {
		t.Fatal("a cancel freed more than one slot")
	}
}

// testThrottleKeysByteExact: keys are byte-exact.
func testThrottleKeysByteExact(t *testing.T, th ThrottleSubject) {
	ctx := context.Background()
	for i := 0; i < 2; i++ {
		take(t, th, userKey("acme"), 2)
	}
	for _, k := range []ports.ThrottleKey{userKey("ACME"), userKey("Acme"), userKey("acmé"), userKey("acme   "), userKey(" acme"), addrKey("acme"), userKey("user:acme"), userKey("")} {
		if r := take(t, th, k, 2); !r.OK {
			t.Errorf("key %v shares acme's budget: %+v", k, r)
		}
	}
	if _, err := th.Take(ctx, ports.ThrottleKey{Kind: 0, Value: "acme"}, 2, window, th.Now()); err == nil {
		t.Error("a key of no known kind was taken")
	}
}

// testThrottleConcurrentTakes: 60 concurrent takes: exactly the limit.
func testThrottleConcurrentTakes(t *testing.T, th ThrottleSubject) {
	if ok := concurrentTakes(t, []ports.LoginThrottle{th}, []time.Time{th.Now()}, 60, 10); ok != 10 {
		t.Fatalf("%d slots taken by 60 concurrent takes, want exactly 10", ok)
	}
}

// testThrottlePrune: prune deletes only what left every window, bounded.
func testThrottlePrune(t *testing.T, th ThrottleSubject) {
	ctx := context.Background()
	p, ok := th.LoginThrottle.(Pruner)
	if !ok {
		t.Skip("no prune: the adapter bounds its state otherwise")
	}
	for i := 0; i < 5; i++ {
		take(t, th, userKey(fmt.Sprintf("old-%d", i)), 3)
	}
	th.Pass(30 * time.Second)
	take(t, th, userKey("recent"), 3)
	th.Pass(window - 30*time.Second + time.Second)
	n, err := p.Prune(ctx, 3)
	if err != nil || n == 0 || n > 6 {
		t.Fatalf("Prune = %d, %v; want some, at most 3 attempts and 3 keys", n, err)
	}
	for n > 0 {
		if n, err = p.Prune(ctx, 3); err != nil {
			t.Fatal(err)
		}
	}
	if r := take(t, th, userKey("recent"), 1); r.OK {
		t.Fatal("prune removed an attempt still in its window")
	}
}

// RunLoginThrottleReplicas checks that two throttles opened on one
// backing store (two replicas) allow one budget together, also when their
// callers' clocks are 90 s apart (the third round's finding 7: a replica
// ahead doubled the address budget).
func RunLoginThrottleReplicas(t *testing.T, open func(testing.TB) (a, b ThrottleSubject)) {
	ctx := context.Background()
	t.Run("one budget", func(t *testing.T) {
		t.Parallel()
		a, b := open(t)
		if ok := concurrentTakes(t, []ports.LoginThrottle{a, b}, []time.Time{a.Now(), b.Now()}, 60, 10); ok != 10 {
			t.Fatalf("%d slots taken by 60 concurrent takes on two replicas, want exactly 10", ok)
		}
		// A slot given back on one replica is free on the other.
		r, err := b.Take(ctx, userKey("other"), 1, time.Minute, b.Now())
		if err != nil || !r.OK {
			t.Fatalf("take on b: %+v, %v", r, err)
		}
		if r, _ := a.Take(ctx, userKey("other"), 1, time.Minute, a.Now()); r.OK {
			t.Fatal("replica a does not see the slot b took")
		}
		if err := a.Cancel(ctx, r); err != nil {
			t.Fatal(err)
		}
		if r, err := a.Take(ctx, userKey("other"), 1, time.Minute, a.Now()); err != nil || !r.OK {
			t.Fatalf("after cancel: %+v, %v", r, err)
		}
	})
	t.Run("clocks 90s apart share one budget", func(t *testing.T) {
		t.Parallel()
		a, b := open(t)
		now := a.Now()
		clocks := []time.Time{now, now.Add(90 * time.Second)}
		ok := 0
		for i := range 60 { // one at a time, alternating: no race, only the clocks differ
			th := []ports.LoginThrottle{a, b}[i%2]
			r, err := th.Take(ctx, addrKey("192.0.2.9"), 30, time.Minute, clocks[i%2])
			if err != nil {
				t.Fatal(err)
			}
			if r.OK {
				ok++
			}
		}
		if ok != 30 {
			t.Fatalf("%d password checks allowed of an address budget of 30 across replicas 90s apart, want 30", ok)
		}
	})
}

// concurrentTakes races n Takes of one key, spread over throttles (each
// called with its own clock), and counts the slots taken.
func concurrentTakes(t *testing.T, ths []ports.LoginThrottle, clocks []time.Time, n, limit int) int {
	var ok atomic.Int64
	var wg sync.WaitGroup
	start := make(chan struct{})
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			r, err := ths[i%len(ths)].Take(context.Background(), userKey("acme"), limit, time.Minute, clocks[i%len(ths)])
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

// RunThrottleSpread races n Takes of one user's key over the replicas'
// throttles (each on its own database node, say) and checks that they
// allow exactly limit together, with no error.
func RunThrottleSpread(t *testing.T, ths []ThrottleSubject, n, limit int) {
	lts := make([]ports.LoginThrottle, len(ths))
	clocks := make([]time.Time, len(ths))
	for i, th := range ths {
		lts[i], clocks[i] = th, th.Now()
	}
	if ok := concurrentTakes(t, lts, clocks, n, limit); ok != limit {
		t.Fatalf("%d slots taken by %d concurrent takes over %d replicas, want exactly %d", ok, n, len(ths), limit)
	}
}

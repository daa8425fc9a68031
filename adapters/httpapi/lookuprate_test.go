package httpapi

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/metrics"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// TestLookupRate: past its rate (3 a second here) a partner's look-ups
// get 429 slow_down, a problem with Retry-After in whole seconds, at once:
// the rate is checked before the slots (a partner whose one slot is held
// and whose rate is spent gets the 429, not the 503) and before any store
// call. Another partner's look-ups still run; after the Retry-After the
// partner's next look-up runs, and a second later its whole burst again.
// The refusals are counted, and logged once per partner and second.
func TestLookupRate(t *testing.T) {
	h := newHarness(t, Limits{LookupRatePerPartner: 3, LookupSlots: 4, LookupSlotsPerPartner: 1})
	held := &heldLookup{started: make(chan string, 16), release: make(chan struct{})}
	clock := fakes.NewClock(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	s := *h.srv
	s.Validator, s.Lookup, s.Clock = held, held, clock
	srv, err := New(s, metrics.New())
	if err != nil {
		t.Fatal(err)
	}
	srv.lookRate.maxWait = 0 // the refusals alone; TestLookupRateWaits is of the waits
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	h.srv, h.url = srv, ts.URL
	acme := map[string]string{"Authorization": "Bearer good"}
	beta := map[string]string{"Authorization": "Bearer good-beta"}
	// storeCalls is how many look-ups reached the store since the last
	// call: each says so on started before it answers.
	storeCalls := func() int {
		for n := 0; ; n++ {
			select {
			case <-held.started:
			default:
				return n
			}
		}
	}
	expect := func(name string, header map[string]string, path string, status int, code string) answer {
		t.Helper()
		a := h.do(t, "GET", path, header, "")
		if a.status != status || code != "" && a.body["code"] != code {
			t.Fatalf("%s: %d %s; want %d %s", name, a.status, a.raw, status, code)
		}
		return a
	}
	throttled := func(name, path string) int {
		t.Helper()
		a := expect(name, acme, path, 429, "slow_down")
		secs, err := strconv.Atoi(a.header.Get("Retry-After"))
		if err != nil || secs < 1 || a.header.Get("Content-Type") != problemContentType || a.body["status"] != 429.0 || a.body["detail"] == "" {
			t.Fatalf("%s: %v %s; want a problem with Retry-After in whole seconds", name, a.header, a.raw)
		}
		if n := storeCalls(); n != 0 {
			t.Fatalf("%s: %d store calls for a look-up past the rate", name, n)
		}
		return secs
	}

	var wg sync.WaitGroup
	wg.Add(1)
	go func() { // acme's first look-up holds its one slot
		defer wg.Done()
		if a := h.do(t, "GET", "/v1/reports", acme, ""); a.status != 200 {
			t.Errorf("the held look-up: %d %s", a.status, a.raw)
		}
	}()
	<-held.started
	expect("acme's second look-up, its slot held", acme, "/v1/reports/1", 503, "overloaded")
	expect("acme's third look-up, its slot held", acme, "/v1/reports", 503, "overloaded")
	throttled("acme's fourth look-up, its slot held and its rate spent", "/v1/reports/1")
	close(held.release)
	wg.Wait()
	expect("beta's look-up while acme's rate is spent", beta, "/v1/reports", 200, "")
	if n := storeCalls(); n != 1 {
		t.Fatalf("%d store calls for beta's look-up, want 1", n)
	}
	wait := throttled("acme's look-up, its slot free and its rate spent", "/v1/reports")

	clock.Add(time.Duration(wait) * time.Second)
	expect("acme's look-up after Retry-After", acme, "/v1/reports/1", 200, "")
	clock.Add(time.Second)
	for i := range 3 {
		expect(fmt.Sprintf("acme's look-up %d of its burst a second later", i+1), acme, "/v1/reports", 200, "")
	}
	if n := storeCalls(); n != 4 {
		t.Fatalf("%d store calls for acme's 4 look-ups within its rate, want 4", n)
	}
	throttled("acme's look-up past the burst", "/v1/reports")

	if n := metricValue(t, srv, "disbursementd_lookups_throttled_total"); n != 3 {
		t.Errorf("lookups_throttled_total = %v, want 3", n)
	}
	if n := metricValue(t, srv, "disbursementd_reports_overloaded_total"); n != 2 {
		t.Errorf("reports_overloaded_total = %v, want the 2 look-ups turned away by the slot", n)
	}
	// The first two 429s fell in one second, the third in another.
	if n := strings.Count(h.logText(), `"status":429`); n != 2 {
		t.Errorf("%d log lines of a 429, want 2 (one per partner and second):\n%s", n, h.logText())
	}
}

// TestLookupRateBound: the buckets are bounded by construction. However
// many partners start look-ups at once, no more buckets than the cap are
// kept (a partner dropped for the cap meets a full bucket, never a
// refusal); a bucket idle for a second, full again, is dropped by the next
// take; an empty bucket says how long until its next look-up.
func TestLookupRateBound(t *testing.T) {
	const perSecond, keys = 2, 3
	l := newLookupRate(perSecond, keys)
	l.maxWait = 0 // the refusals alone; TestLookupRateWaits is of the waits
	t0 := time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)
	for i := range 10 * keys {
		if _, _, ok := l.take(fmt.Sprint("partner-", i), t0); !ok {
			t.Fatalf("partner-%d's first look-up refused", i)
		}
		if n := l.buckets.Len(); n > keys {
			t.Fatalf("%d buckets after %d partners, want at most %d", n, i+1, keys)
		}
	}
	if _, _, ok := l.take("partner-0", t0); !ok {
		t.Fatal("partner-0, dropped for the cap, refused")
	}
	if _, _, ok := l.take("partner-0", t0); !ok {
		t.Fatal("partner-0's second look-up of its burst refused")
	}
	if _, wait, ok := l.take("partner-0", t0); ok || wait != time.Second/perSecond {
		t.Fatalf("partner-0 past its burst: %v, %s; want refused, one look-up in %s", ok, wait, time.Second/perSecond)
	}
	if _, _, ok := l.take("partner-0", t0.Add(time.Second/perSecond)); !ok {
		t.Fatal("partner-0 refused once its wait had passed")
	}
	if _, _, ok := l.take("another", t0.Add(time.Second/perSecond+refill)); !ok || l.buckets.Len() != 1 {
		t.Fatalf("a second after the others' last look-up: %d buckets, want only the new one", l.buckets.Len())
	}
}

// TestLookupRateWaits: a look-up past its partner's rate whose turn comes
// within a second waits for it (holding no slot) and then runs, counted in
// lookups_delayed_total; one whose turn is further off is refused at once
// with 429 and Retry-After; a waiting look-up whose client goes away gives
// its turn back. The clock stands still, so the turns are exactly those of
// the burst and the second's reservations.
func TestLookupRateWaits(t *testing.T) {
	h := newHarness(t, Limits{LookupRatePerPartner: 2, LookupSlots: 8, LookupSlotsPerPartner: 8})
	clock := fakes.NewClock(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	free := &heldLookup{started: make(chan string, 16), release: make(chan struct{})}
	close(free.release) // every look-up answers at once
	h.rebuild(t, func(s *Server) { s.Validator, s.Lookup, s.Clock = free, free, clock })
	acme := map[string]string{"Authorization": "Bearer good"}
	acmeKey := partnerOf(ports.Principal{User: "acme", NIT: "900123456"}) // the key of "Bearer good"
	for i := range 2 {
		if a := h.do(t, "GET", "/v1/reports", acme, ""); a.status != 200 {
			t.Fatalf("look-up %d of the burst: %d %s", i+1, a.status, a.raw)
		}
	}
	// The next two turns are half a second and a second off: both wait
	// and run.
	var wg sync.WaitGroup
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a := h.do(t, "GET", "/v1/reports", acme, ""); a.status != 200 {
				t.Errorf("look-up %d past the burst, its turn within a second: %d %s", i+1, a.status, a.raw)
			}
		}()
	}
	wg.Wait()
	if n := metricValue(t, h.srv, "disbursementd_lookups_delayed_total"); n != 2 {
		t.Fatalf("lookups_delayed_total = %v, want 2", n)
	}
	// The next turn is 1.5 s off: refused at once.
	a := h.do(t, "GET", "/v1/reports", acme, "")
	if a.status != 429 || a.body["code"] != "slow_down" || a.header.Get("Retry-After") != "1" {
		t.Fatalf("a look-up whose turn is 1.5 s off: %d %v %s; want 429 slow_down, Retry-After 1", a.status, a.header, a.raw)
	}
	if n := metricValue(t, h.srv, "disbursementd_lookups_throttled_total"); n != 1 {
		t.Fatalf("lookups_throttled_total = %v, want 1", n)
	}
	// Half a second later one turn is within a second again; a look-up
	// that takes it and is cancelled while waiting gives it back, so the
	// next one may take it.
	clock.Add(500 * time.Millisecond)
	reserved, wait, ok := h.srv.lookRate.take(acmeKey, clock.Now())
	if !ok || wait != time.Second {
		t.Fatalf("the reserved turn: %v, %s; want a wait of 1s", ok, wait)
	}
	if _, _, ok := h.srv.lookRate.take(acmeKey, clock.Now()); ok {
		t.Fatal("a second turn reserved past the second")
	}
	reserved.giveBack(clock.Now())
	if _, _, ok := h.srv.lookRate.take(acmeKey, clock.Now()); !ok {
		t.Fatal("the turn given back was not taken again")
	}

	// A look-up whose client goes while it waits gives its turn back:
	// ten seconds on (a full bucket), the burst spent, a look-up whose
	// turn is half a second off is cancelled by its client after 100 ms;
	// the next turn is then half a second off again, not a second.
	clock.Add(10 * time.Second)
	for range 2 {
		if _, _, ok := h.srv.lookRate.take(acmeKey, clock.Now()); !ok {
			t.Fatal("the burst, ten seconds on, refused")
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", h.url+"/v1/reports", nil)
	req.Header.Set("Authorization", "Bearer good")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		resp.Body.Close()
		t.Fatalf("a look-up half a second from its turn answered %d within its client's 100 ms", resp.StatusCode)
	}
	// The server sees its client gone; a wait that never ends fails here,
	// not at the package's timeout.
	for gone := time.Now().Add(10 * time.Second); h.srv.lookRate.waiting.Load() != 0 || metricValue(t, h.srv, "disbursementd_lookups_delayed_total") != 3; {
		if time.Now().After(gone) {
			t.Fatalf("10 s after its client went: %d look-ups still waiting, lookups_delayed_total %v (want 0 and 3)",
				h.srv.lookRate.waiting.Load(), metricValue(t, h.srv, "disbursementd_lookups_delayed_total"))
		}
		runtime.Gosched()
	}
	if _, wait, ok := h.srv.lookRate.take(acmeKey, clock.Now()); !ok || wait != 500*time.Millisecond {
		t.Fatalf("after a waiting look-up's client went: %v, %s; want its turn, half a second off", ok, wait)
	}
}

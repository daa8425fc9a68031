package httpapi

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"

	"github.com/lender/disbursementd/domain"
)

// lookupRateKeys bounds the partners whose look-up rate is remembered at
// once (per replica). A bucket idle for a second is dropped, so the bound
// is reached only when that many partners look reports up within one
// second.
const lookupRateKeys = 10_000

// lookupRate is a token bucket per key (a partner's token subject): a key
// may start perSecond look-ups a second, in bursts of up to perSecond
// (one second's worth). The look-up slots (keyedGate) bound the look-ups
// under way, not how many start: look-ups that are cheap run back to
// back through a partner's slots by the thousand a second and take the
// CPU that other partners' reports need (issue 25). This bounds that,
// and costs no store call.
//
// A look-up past the rate waits for its turn when that comes within
// lookupMaxWait (its look-up is reserved: the bucket goes below zero), as
// nginx's limit_req with a burst queue does, and only one whose turn is
// further off is refused. A closed loop of clients then gets perSecond
// look-ups a second and spends the rest of its time waiting, not the
// service's CPU on thousands of 429s a second; a partner that pages a
// little too fast is slowed, not failed.
//
// It is bounded by construction: a bucket left alone long enough is
// full again, the same as no bucket, so such buckets are dropped as the
// next take passes them; the number of buckets is capped (newLookupRate's
// keys), the least recently used dropped when a new key would pass the
// cap (which can only give the dropped key a full bucket early); and the
// look-ups waiting are at most perSecond × lookupMaxWait a partner and
// lookupWaitingCap in all.
type lookupRate struct {
	mu        sync.Mutex
	perSecond float64
	maxWait   time.Duration // lookupMaxWait; 0 in tests of the refusals alone
	buckets   *lru.Cache[string, *bucket]
	waiting   atomic.Int64 // look-ups waiting for their turn
}

// bucket is one key's look-ups left (up to perSecond) as counted at at.
type bucket struct {
	tokens float64
	at     time.Time
}

// refill is how long an empty bucket takes to be full (burst ÷ rate).
const refill = time.Second

// lookupMaxWait is the longest a look-up waits for its turn.
const lookupMaxWait = time.Second

// lookupWaitingCap bounds the look-ups waiting for their turn on one
// replica, whatever the partners: each is a parked goroutine and an idle
// connection (a few KiB). Past it a look-up past its rate is refused.
const lookupWaitingCap = 1024

func newLookupRate(perSecond, keys int) *lookupRate {
	c, _ := lru.New[string, *bucket](keys) // keys > 0: no error
	return &lookupRate{perSecond: float64(perSecond), maxWait: lookupMaxWait, buckets: c}
}

// take spends one of key's look-ups at now. When none is left it
// reserves the next one if that comes within maxWait, and returns how
// long to wait for it; otherwise it spends nothing and returns false and
// how long until a look-up would wait no more than maxWait.
func (l *lookupRate) take(key string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// A bucket is full again, the same as no bucket, at most refill +
	// maxWait after its last take (from maxWait's reservations below 0).
	idle := refill + l.maxWait
	// The least recently used bucket is the one counted longest ago: drop
	// the idle ones from that end.
	for {
		_, b, ok := l.buckets.GetOldest()
		if !ok || now.Sub(b.at) < idle {
			break
		}
		l.buckets.RemoveOldest()
	}
	b, ok := l.buckets.Get(key)
	if !ok {
		b = &bucket{tokens: l.perSecond, at: now}
		l.buckets.Add(key, b)
	}
	elapsed := max(now.Sub(b.at), 0) // a clock set back refills nothing
	b.tokens = min(l.perSecond, b.tokens+elapsed.Seconds()*l.perSecond)
	b.at = now
	if b.tokens >= 1 {
		b.tokens--
		return 0, true
	}
	wait := time.Duration((1 - b.tokens) / l.perSecond * float64(time.Second))
	if wait > l.maxWait {
		return wait - l.maxWait, false
	}
	b.tokens--
	return wait, true
}

// giveBack returns a look-up reserved by take that will not run.
func (l *lookupRate) giveBack(key string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if b, ok := l.buckets.Peek(key); ok {
		b.tokens = min(l.perSecond, b.tokens+1)
	}
}

// overRate is the answer of a look-up past its partner's rate, or nil
// when it may go on: 429 slow_down (domain.ErrThrottled) with
// Retry-After, counted in disbursementd_lookups_throttled_total. The
// request logs one line per partner and second, as throttled logins do
// (contract §7).
func (s *Server) overRate(r *http.Request, user string) error {
	now := s.Clock.Now()
	wait, ok := s.lookRate.take(user, now)
	if ok && wait > 0 {
		ok = s.waitTurn(r, user, wait)
	}
	if ok {
		return nil
	}
	s.metrics.LookupsThrottled.Inc()
	ri := info(r)
	ri.quiet = !s.quiet.first("lookup_rate:"+user, now, now.Add(refill))
	ri.detail = "throttled by lookup_rate_per_partner"
	e := domain.Throttled("lookup_rate", max(wait, time.Second))
	e.Message = "Demasiadas consultas por segundo; reintente tras los segundos de Retry-After"
	return e
}

// waitTurn waits out a look-up's reserved turn, holding no slot and no
// store connection, and reports whether it may go on: false (its turn
// given back) when lookupWaitingCap look-ups already wait or its client
// has gone. The wait is counted in disbursementd_lookups_delayed_total.
func (s *Server) waitTurn(r *http.Request, user string, wait time.Duration) bool {
	if s.lookRate.waiting.Add(1) > lookupWaitingCap {
		s.lookRate.waiting.Add(-1)
		s.lookRate.giveBack(user)
		return false
	}
	defer s.lookRate.waiting.Add(-1)
	s.metrics.LookupsDelayed.Inc()
	t := time.NewTimer(wait)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		s.lookRate.giveBack(user)
		return false
	}
}

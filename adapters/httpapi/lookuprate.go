package httpapi

import (
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	lru "github.com/hashicorp/golang-lru/v2"
	"golang.org/x/time/rate"

	"github.com/lender/disbursementd/domain"
)

// lookupRateKeys bounds the partners whose look-up rate is remembered at
// once (per replica). A bucket idle for a second is dropped, so the bound
// is reached only when that many partners look reports up within one
// second.
const lookupRateKeys = 10_000

// lookupRate is transport admission, as http.max_in_flight, the gates of
// the bodies being received and the bytes in flight are: it sheds load
// on this replica before a request costs the store anything, so it lives
// in the HTTP adapter with their numbers (Limits), and its state is this
// process's. It is not a port with a shared adapter, as the login
// throttle is: the throttle counts guesses at a password, which every
// replica must count together, while this counts what one replica's CPU
// gives out, and asking a shared store per look-up would cost the store
// call it exists to spare. The decision is in docs/decisions.md ("The
// look-up rate is transport admission").
//
// It is a token bucket per key (a partner, partnerOf) from
// golang.org/x/time/rate: a key may start perSecond look-ups a second, in
// bursts of up to perSecond (one second's worth). The look-up slots
// (keyedGate) bound the look-ups under way, not how many start: look-ups
// that are cheap run back to back through a partner's slots by the
// thousand a second and take the CPU that other partners' reports need
// (issue 25). This bounds that, and costs no store call.
//
// A look-up past the rate waits for its turn when that comes within
// maxWait (its turn is reserved), as nginx's limit_req with a burst queue
// does, and only one whose turn is further off is refused. A closed loop
// of clients then gets perSecond look-ups a second and spends the rest of
// its time waiting, not the service's CPU on thousands of 429s a second;
// a partner that pages a little too fast is slowed, not failed.
//
// It is bounded by construction: a bucket left alone for refill + maxWait
// is full again, the same as no bucket, so such buckets are dropped as the
// next take passes them; the number of buckets is capped (newLookupRate's
// keys), the least recently used dropped when a new key would pass the
// cap (which can only give the dropped key a full bucket early); and the
// look-ups waiting are at most perSecond × maxWait a partner and
// lookupWaitingCap in all.
type lookupRate struct {
	mu        sync.Mutex
	perSecond int
	maxWait   time.Duration // lookupMaxWait; 0 in tests of the refusals alone
	buckets   *lru.Cache[string, *bucket]
	waiting   atomic.Int64 // look-ups waiting for their turn
}

// bucket is one key's limiter and the time of its last take.
type bucket struct {
	lim *rate.Limiter
	at  time.Time
}

// turn is a look-up reserved by take; giveBack returns it.
type turn struct{ r *rate.Reservation }

// giveBack returns a turn that will not be used, at now (a turn that has
// come already is spent).
func (t turn) giveBack(now time.Time) {
	if t.r != nil {
		t.r.CancelAt(now)
	}
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
	return &lookupRate{perSecond: perSecond, maxWait: lookupMaxWait, buckets: c}
}

// take spends one of key's look-ups at now, or reserves the next one if
// that comes within maxWait, and returns the turn and how long to wait for
// it (0: at once). Otherwise it spends nothing and returns false and how
// long until a look-up would wait no more than maxWait.
func (l *lookupRate) take(key string, now time.Time) (turn, time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The least recently used bucket is the one taken from longest ago:
	// drop the idle ones, full again, from that end.
	for {
		_, b, ok := l.buckets.GetOldest()
		if !ok || now.Sub(b.at) < refill+l.maxWait {
			break
		}
		l.buckets.RemoveOldest()
	}
	b, ok := l.buckets.Get(key)
	if !ok {
		b = &bucket{lim: rate.NewLimiter(rate.Limit(l.perSecond), l.perSecond)}
		l.buckets.Add(key, b)
	}
	b.at = now
	r := b.lim.ReserveN(now, 1) // 1 <= the burst: always ok
	wait := r.DelayFrom(now)
	if wait > l.maxWait {
		r.CancelAt(now)
		return turn{}, wait - l.maxWait, false
	}
	return turn{r}, wait, true
}

// overRate is the answer of a look-up past its partner's rate, or nil
// when it may go on: 429 slow_down (domain.ErrThrottled) with
// Retry-After, counted in disbursementd_lookups_throttled_total. The
// request logs one line per partner and second, as throttled logins do
// (contract §7).
func (s *Server) overRate(r *http.Request, partner string) error {
	now := s.Clock.Now()
	t, wait, ok := s.lookRate.take(partner, now)
	if ok && wait > 0 {
		ok = s.waitTurn(r, t, wait)
	}
	if ok {
		return nil
	}
	s.metrics.LookupThrottled()
	ri := info(r)
	ri.quiet = !s.quiet.first("lookup_rate:"+partner, now, now.Add(refill))
	ri.detail = "throttled by lookup_rate_per_partner"
	e := domain.Throttled("lookup_rate", max(wait, time.Second))
	e.Message = "Demasiadas consultas por segundo; reintente tras los segundos de Retry-After"
	return e
}

// waitTurn waits out a look-up's reserved turn, holding no slot and no
// store connection, and reports whether it may go on: false (its turn
// given back) when lookupWaitingCap look-ups already wait or its client
// has gone. The wait is counted in disbursementd_lookups_delayed_total.
func (s *Server) waitTurn(r *http.Request, t turn, wait time.Duration) bool {
	if s.lookRate.waiting.Add(1) > lookupWaitingCap {
		s.lookRate.waiting.Add(-1)
		t.giveBack(s.Clock.Now())
		return false
	}
	defer s.lookRate.waiting.Add(-1)
	s.metrics.LookupDelayed()
	timer := time.NewTimer(wait)
	defer timer.Stop()
	select {
	case <-timer.C:
		return true
	case <-r.Context().Done():
		t.giveBack(s.Clock.Now())
		return false
	}
}

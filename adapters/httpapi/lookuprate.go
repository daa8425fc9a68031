package httpapi

import (
	"net/http"
	"sync"
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
// It is bounded by construction: a bucket left alone for a second is full
// again, the same as no bucket, so such buckets are dropped as the next
// take passes them; and the number of buckets is capped (newLookupRate's
// keys), the least recently used dropped when a new key would pass the
// cap (which can only give the dropped key a full bucket early).
type lookupRate struct {
	mu        sync.Mutex
	perSecond float64
	buckets   *lru.Cache[string, *bucket]
}

// bucket is one key's look-ups left (up to perSecond) as counted at at.
type bucket struct {
	tokens float64
	at     time.Time
}

// refill is how long an empty bucket takes to be full (burst ÷ rate).
const refill = time.Second

func newLookupRate(perSecond, keys int) *lookupRate {
	c, _ := lru.New[string, *bucket](keys) // keys > 0: no error
	return &lookupRate{perSecond: float64(perSecond), buckets: c}
}

// take spends one of key's look-ups at now. When none is left it spends
// nothing and returns false and how long until one is.
func (l *lookupRate) take(key string, now time.Time) (time.Duration, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	// The least recently used bucket is the one counted longest ago: drop
	// the idle ones from that end.
	for {
		_, b, ok := l.buckets.GetOldest()
		if !ok || now.Sub(b.at) < refill {
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
	if b.tokens < 1 {
		return time.Duration((1 - b.tokens) / l.perSecond * float64(time.Second)), false
	}
	b.tokens--
	return 0, true
}

// overRate is the answer of a look-up past its partner's rate, or nil
// when it may go on: 429 slow_down (domain.ErrThrottled) with
// Retry-After, counted in disbursementd_lookups_throttled_total. The
// request logs one line per partner and second, as throttled logins do
// (contract §7).
func (s *Server) overRate(r *http.Request, user string) error {
	now := s.Clock.Now()
	wait, ok := s.lookRate.take(user, now)
	if ok {
		return nil
	}
	s.metrics.LookupsThrottled.Inc()
	ri := info(r)
	ri.quiet = !s.quiet.first("lookup_rate:"+user, now, now.Add(refill))
	ri.detail = "throttled by lookup_rate_per_partner"
	e := domain.Throttled("lookup_rate", wait)
	e.Message = "Demasiadas consultas por segundo; reintente tras los segundos de Retry-After"
	return e
}

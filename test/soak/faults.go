package soak

import (
	"math/rand/v2"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/lender/disbursementd/test/faultproxy"
)

// faultPlan draws the proxies' faults and counts what it injected.
type faultPlan struct {
	f       Faults
	timeout time.Duration // a COMMIT held longer outlives its report

	commits, commitsPast atomic.Int64
	maxHeld              atomic.Int64 // nanoseconds
	lastRelease          atomic.Int64 // Unix nanoseconds: when the last held COMMIT is let through

	mu   sync.Mutex
	puts map[string]int64 // object PUT faults by kind
}

func newFaultPlan(c *Config) *faultPlan {
	return &faultPlan{f: c.Faults, timeout: c.ReportTimeout, puts: map[string]int64{}}
}

// commitDelay is how long the MySQL proxy holds one COMMIT: for a share
// of them a uniform delay up to CommitMax, else none.
func (p *faultPlan) commitDelay() time.Duration {
	if rand.Float64() >= p.f.CommitShare {
		return 0
	}
	d := rand.N(p.f.CommitMax)
	p.commits.Add(1)
	if d > p.timeout {
		p.commitsPast.Add(1)
	}
	for m := p.maxHeld.Load(); int64(d) > m && !p.maxHeld.CompareAndSwap(m, int64(d)); m = p.maxHeld.Load() {
	}
	release := time.Now().Add(d).UnixNano()
	for l := p.lastRelease.Load(); release > l && !p.lastRelease.CompareAndSwap(l, release); l = p.lastRelease.Load() {
	}
	return d
}

// putFault is what the S3 proxy does to one request: object PUTs fail,
// are cut, reach the server late or are answered late, each for its
// share; everything else goes through.
func (p *faultPlan) putFault(r *http.Request) faultproxy.Fault {
	if !faultproxy.IsObjectPUT(r) {
		return faultproxy.Fault{}
	}
	x := rand.Float64()
	var f faultproxy.Fault
	var kind string
	switch f2 := p.f; {
	case x < f2.PutFail:
		f.Status, kind = []int{http.StatusInternalServerError, http.StatusServiceUnavailable}[rand.IntN(2)], "failed"
	case x < f2.PutFail+f2.PutCut:
		f.Cut, kind = true, "cut"
	case x < f2.PutFail+f2.PutCut+f2.PutSlow:
		f.Delay, kind = rand.N(f2.PutDelayMax), "slow"
	case x < f2.PutFail+f2.PutCut+f2.PutSlow+f2.PutLate:
		f.AnswerDelay, kind = rand.N(f2.PutDelayMax), "answered late"
	default:
		return f
	}
	p.mu.Lock()
	p.puts[kind]++
	p.mu.Unlock()
	return f
}

// arm starts the faults; disarm stops them (statements and requests
// already held finish their delay).
func (s *soak) arm() {
	s.mysql.DelayEach("COMMIT", s.plan.commitDelay)
	s.s3.SetFaults(s.plan.putFault)
}

func (s *soak) disarm() {
	s.mysql.DelayEach("COMMIT", nil)
	s.s3.SetFaults(nil)
}

// quietAt is when the last held COMMIT reaches the database.
func (p *faultPlan) quietAt() time.Time { return time.Unix(0, p.lastRelease.Load()) }

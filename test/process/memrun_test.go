package process

import (
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/proc"
	"github.com/lender/disbursementd/test/testkit"
)

// memRun is the real binary under the shipped container's memory limit
// and GOMEMLIMIT, in a memory cgroup of that limit when the machine
// allows one (else its peak is its VmHWM), with partners users of their
// own (a NIT each) and a token for each.
type memRun struct {
	limit    int64
	memLimit string
	cg       *memCgroup // nil when the machine allows none
	p        *proc.Process
	logs     *testkit.SyncBuffer
	toks     []string
}

// startMemRun starts a memRun with partners users; the process is killed
// when the test ends.
func startMemRun(t *testing.T, partners int) *memRun {
	t.Helper()
	r := &memRun{logs: &testkit.SyncBuffer{}}
	r.limit, r.memLimit = shippedMemory(t)
	dir := t.TempDir()
	// The test's own clients, on a busy machine, can be kept from sending
	// for longer than http.body_rate_grace's default; they are not the
	// slow clients that rule is for, and a body kept longer holds its
	// reservation longer, so a longer grace leaves the bound at least as
	// hard to hold.
	env := testkit.BaseEnv("GOMEMLIMIT="+r.memLimit, "DISB_HTTP_BODY_RATE_GRACE=30s")
	bin := testkit.BinaryPath(t)
	cg, why := newMemCgroup(t, r.limit)
	if cg != nil {
		r.cg, bin = cg, cg.wrap(t, bin)
	} else {
		t.Logf("no cgroup (%v): the peak is the process's VmHWM", why)
	}
	for i := range partners {
		if out, err := testkit.CLI(t, dir, env, testkit.Password+"\n", "users", "add", "--user", fmt.Sprintf("%s-%d", testkit.Partner, i), "--nit", fmt.Sprintf("8001234%02d", i)); err != nil {
			t.Fatalf("users add: %v\n%s", err, out)
		}
	}
	p, err := proc.Start(bin, dir, env, r.logs)
	if err != nil {
		t.Fatalf("%v\n%s", err, r.logs.String())
	}
	t.Cleanup(p.Kill)
	r.p = p
	in := &testkit.Instance{URL: p.URL}
	r.toks = make([]string, partners)
	for i := range r.toks {
		r.toks[i] = in.Token(t, fmt.Sprintf("%s-%d", testkit.Partner, i), testkit.Password)
	}
	return r
}

// memPeaks are the highest values sampled while a run went on: the
// process's RSS, the Go heap in use and the bytes reserved for bodies.
type memPeaks struct {
	rss, heap, reserved atomic.Int64
}

// sample reads the process's RSS and memMetrics every 100 ms until the
// returned stop is called; stop returns the peaks.
func (r *memRun) sample() (stop func() *memPeaks) {
	peaks := &memPeaks{}
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			peaks.rss.Store(max(peaks.rss.Load(), procStatus(r.p.PID(), "VmRSS")))
			heap, reserved := memMetrics(r.p.URL)
			peaks.heap.Store(max(peaks.heap.Load(), heap))
			peaks.reserved.Store(max(peaks.reserved.Load(), reserved))
			select {
			case <-done:
				return
			case <-time.After(100 * time.Millisecond):
			}
		}
	}()
	return func() *memPeaks {
		close(done)
		<-sampled
		return peaks
	}
}

// checkLimit fails the test when the kernel killed a process in the
// cgroup or the peak RSS or the cgroup's peak reached the limit, and
// returns those peaks (the cgroup's 0 without one).
func (r *memRun) checkLimit(t *testing.T) (hwm, cgPeak int64) {
	t.Helper()
	hwm = procStatus(r.p.PID(), "VmHWM")
	var ooms int64
	if r.cg != nil {
		cgPeak, ooms = max(r.cg.peak(), r.cg.usage()), r.cg.ooms()
	}
	if ooms > 0 {
		t.Errorf("the kernel killed %d processes in the cgroup", ooms)
	}
	if hwm >= r.limit || cgPeak >= r.limit {
		t.Errorf("peak RSS %d, cgroup peak %d: not under the limit %d", hwm, cgPeak, r.limit)
	}
	return hwm, cgPeak
}

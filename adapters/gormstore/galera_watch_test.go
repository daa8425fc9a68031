package gormstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/storetest"
)

// clusterWatch watches every node of a Galera cluster while a test runs,
// each node on its own: whether it takes writes (a one-row INSERT every
// 100 ms, each timed from its start to its commit), and, for the
// timeline a failure prints, its Galera state (down, joining, donor,
// outside the Primary component, not ready, paused by flow control).
// The writes are what the failover test's excuse reads: a stretch in
// which no node committed a write promptly is one no replica could store
// in, whatever the nodes said.
type clusterWatch struct {
	nodes  int
	stop   chan struct{}
	wg     sync.WaitGroup
	closed sync.Once
	mu     sync.Mutex
	seen   []watchEvent // status changes, in the order seen
	writes []probeWrite
}

type watchEvent struct {
	at    time.Time
	node  int // 1-based
	state string
}

// probeWrite is one of the watch's writes on a node.
type probeWrite struct {
	node       int
	start, end time.Time
	err        error
}

const (
	watchEvery = 100 * time.Millisecond
	// promptWrite is how long a write may take for its node to count as
	// taking writes: well above a commit's time on a loaded machine, well
	// below the stalls the watch is for.
	promptWrite     = 500 * time.Millisecond
	watchWriteLimit = 5 * time.Second // a write's own time limit
)

func watchCluster(t *testing.T, dsns []string) *clusterWatch {
	t.Helper()
	createWatchTable(t, dsns)
	w := &clusterWatch{nodes: len(dsns), stop: make(chan struct{})}
	for i, d := range dsns {
		cfg, err := mysqldrv.ParseDSN(d)
		if err != nil {
			w.end()
			t.Fatal(err)
		}
		cfg.Timeout, cfg.ReadTimeout = time.Second, watchWriteLimit
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params[storetest.CausalReads] = "0"
		c, err := mysqldrv.NewConnector(cfg)
		if err != nil {
			w.end()
			t.Fatal(err)
		}
		db := sql.OpenDB(c)
		db.SetMaxOpenConns(2) // the status and the writes
		var node sync.WaitGroup
		node.Go(func() { w.sampleStatus(db, i+1) })
		node.Go(func() { w.probeWrites(db, i+1) })
		w.wg.Go(func() { node.Wait(); _ = db.Close() })
	}
	t.Cleanup(w.end)
	return w
}

// createWatchTable creates the watch's table (a row a write, so that no
// write waits for another's lock) and waits until every node has it.
func createWatchTable(t *testing.T, dsns []string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for i, d := range dsns {
		db, err := storetest.OpenSQL(gormstore.MySQL, d)
		if err != nil {
			t.Fatal(err)
		}
		for {
			if i == 0 {
				_, err = db.ExecContext(ctx, "CREATE TABLE IF NOT EXISTS failover_watch (id BIGINT AUTO_INCREMENT PRIMARY KEY, node INT NOT NULL, at DATETIME(6) NOT NULL) ENGINE=InnoDB")
			} else {
				var n int
				err = db.QueryRowContext(ctx, "SELECT COUNT(*) FROM failover_watch").Scan(&n)
			}
			if err == nil || ctx.Err() != nil {
				break
			}
			time.Sleep(50 * time.Millisecond)
		}
		_ = db.Close()
		if err != nil {
			t.Fatalf("the cluster watch's table on node %d: %v", i+1, err)
		}
	}
}

// stopped says whether end was called, waiting at most d for it.
func (w *clusterWatch) stopped(d time.Duration) bool {
	select {
	case <-w.stop:
		return true
	case <-time.After(d):
		return false
	}
}

// probeWrites writes a row on node every watchEvery (or as soon as the
// last write returned, when it took longer) until end.
func (w *clusterWatch) probeWrites(db *sql.DB, node int) {
	for {
		start := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), watchWriteLimit)
		_, err := db.ExecContext(ctx, "INSERT INTO failover_watch (node, at) VALUES (?, NOW(6))", node)
		cancel()
		end := time.Now()
		w.mu.Lock()
		w.writes = append(w.writes, probeWrite{node: node, start: start, end: end, err: err})
		w.mu.Unlock()
		if w.stopped(max(0, watchEvery-end.Sub(start))) {
			return
		}
	}
}

// sampleStatus records node's Galera state when it changes, sampled
// every watchEvery, until end.
func (w *clusterWatch) sampleStatus(db *sql.DB, node int) {
	last, paused, prev := "", int64(-1), time.Now()
	for {
		now := time.Now()
		s := nodeState(db, &paused, now.Sub(prev))
		prev = now
		if s != last {
			w.mu.Lock()
			w.seen = append(w.seen, watchEvent{at: now, node: node, state: s})
			w.mu.Unlock()
			last = s
		}
		if w.stopped(watchEvery) {
			return
		}
	}
}

// nodeState is one node's state as the watch tells it. paused holds the
// node's wsrep_flow_control_paused_ns between calls (-1: unknown); the
// node is told paused by flow control when it grew by more than half of
// interval, the time since the last call.
func nodeState(db *sql.DB, paused *int64, interval time.Duration) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_cluster_status', 'wsrep_local_state_comment', 'wsrep_cluster_size', 'wsrep_flow_control_paused_ns')")
	if err != nil {
		*paused = -1
		return "no answer"
	}
	defer rows.Close()
	st := map[string]string{}
	for rows.Next() {
		var k, v string
		if rows.Scan(&k, &v) == nil {
			st[strings.ToLower(k)] = v
		}
	}
	if rows.Err() != nil {
		*paused = -1
		return "no answer"
	}
	s := fmt.Sprintf("%s, %s of %s, ready %s", st["wsrep_local_state_comment"], st["wsrep_cluster_status"], st["wsrep_cluster_size"], st["wsrep_ready"])
	if ns, err := strconv.ParseInt(st["wsrep_flow_control_paused_ns"], 10, 64); err == nil {
		if *paused >= 0 && ns-*paused > int64(interval/2) {
			s += ", flow control paused"
		}
		*paused = ns
	}
	return s
}

// end stops the watch and waits for it (once).
func (w *clusterWatch) end() {
	w.closed.Do(func() { close(w.stop) })
	w.wg.Wait()
}

// tell logs each node's state at since and every change after it (at
// most 80), each as its time after since, and the stretches of writes
// that were not prompt.
func (w *clusterWatch) tell(t *testing.T, since time.Time) {
	t.Helper()
	w.mu.Lock()
	defer w.mu.Unlock()
	before := map[int]watchEvent{}
	var after []watchEvent
	for _, e := range w.seen {
		if e.at.Before(since) {
			before[e.node] = e
		} else {
			after = append(after, e)
		}
	}
	slices.SortStableFunc(after, func(a, b watchEvent) int { return a.at.Compare(b.at) })
	for n := 1; n <= w.nodes; n++ {
		if e, ok := before[n]; ok {
			t.Logf("cluster: at 0s node %d: %s (since %+.2fs)", n, e.state, e.at.Sub(since).Seconds())
		}
	}
	for i, e := range after {
		if i == 80 {
			t.Logf("cluster: ... %d more changes", len(after)-i)
			break
		}
		t.Logf("cluster: %+.2fs node %d: %s", e.at.Sub(since).Seconds(), e.node, e.state)
	}
	// The writes that were not prompt, as stretches of one node's writes
	// in a row, each with its first error (at most 40 stretches).
	told := 0
	for n := 1; n <= w.nodes; n++ {
		var run []probeWrite
		flush := func() {
			t.Helper()
			if len(run) == 0 {
				return
			}
			if told++; told <= 40 {
				first, last := run[0], run[len(run)-1]
				var why error
				for _, p := range run {
					if p.err != nil {
						why = p.err
						break
					}
				}
				t.Logf("cluster: %+.2fs to %+.2fs node %d: %d writes not prompt (the longest %s; the first error: %v)",
					first.start.Sub(since).Seconds(), last.end.Sub(since).Seconds(), n, len(run), longest(run).Round(time.Millisecond), why)
			}
			run = run[:0]
		}
		for _, p := range w.writes {
			switch {
			case p.node != n || p.start.Before(since):
			case p.err != nil || p.end.Sub(p.start) > promptWrite:
				run = append(run, p)
			default:
				flush()
			}
		}
		flush()
	}
	if told > 40 {
		t.Logf("cluster: ... %d more stretches of writes not prompt", told-40)
	}
}

// longest is the longest of the writes' times.
func longest(writes []probeWrite) time.Duration {
	var d time.Duration
	for _, p := range writes {
		d = max(d, p.end.Sub(p.start))
	}
	return d
}

// span is a stretch of time.
type span struct{ from, to time.Time }

// unserved is the stretches within [from, to] in which no node took
// writes: a node takes them from the start of a write that committed
// within promptWrite until the start of its next write (or the end of
// this one and watchEvery, when it was the last).
func (w *clusterWatch) unserved(from, to time.Time) []span {
	w.mu.Lock()
	defer w.mu.Unlock()
	return unservedBy(w.writes, from, to)
}

func unservedBy(writes []probeWrite, from, to time.Time) []span {
	next := map[int]time.Time{} // each node's next write's start, walking backwards
	var served []span
	for i := len(writes) - 1; i >= 0; i-- {
		p := writes[i]
		until, ok := next[p.node]
		if !ok {
			until = p.end.Add(watchEvery)
		}
		next[p.node] = p.start
		if p.err == nil && p.end.Sub(p.start) <= promptWrite {
			served = append(served, span{p.start, until})
		}
	}
	slices.SortFunc(served, func(a, b span) int { return a.from.Compare(b.from) })
	var out []span
	at := from // served up to here
	for _, s := range served {
		if s.from.After(at) {
			out = append(out, span{at, s.from})
		}
		if s.to.After(at) {
			at = s.to
		}
	}
	if to.After(at) {
		out = append(out, span{at, to})
	}
	return clip(out, from, to)
}

// clip is the parts of spans within [from, to].
func clip(spans []span, from, to time.Time) []span {
	var out []span
	for _, s := range spans {
		a, b := s.from, s.to
		if a.Before(from) {
			a = from
		}
		if b.After(to) {
			b = to
		}
		if b.After(a) {
			out = append(out, span{a, b})
		}
	}
	return out
}

// overlap is how much of [from, to] the spans cover.
func overlap(spans []span, from, to time.Time) time.Duration {
	var d time.Duration
	for _, s := range clip(spans, from, to) {
		d += s.to.Sub(s.from)
	}
	return d
}

// quorumLost is the stretches within [from, to] in which the cluster had
// no Primary component (a majority of its nodes answered the watch that
// they were outside it) and no node took writes (unserved): the nodes
// lost each other, which a node's death alone does not do (its stall is
// the survivors still in the Primary component, waiting for it), and no
// replica can store then.
func (w *clusterWatch) quorumLost(from, to time.Time) []span {
	w.mu.Lock()
	defer w.mu.Unlock()
	return intersect(noPrimary(w.seen, w.nodes, from, to), unservedBy(w.writes, from, to))
}

// noPrimary is the stretches within [from, to] in which at least a
// majority of the nodes' last told states were answers outside the
// Primary component (a node that does not answer counts for neither).
func noPrimary(seen []watchEvent, nodes int, from, to time.Time) []span {
	events := slices.Clone(seen)
	slices.SortStableFunc(events, func(a, b watchEvent) int { return a.at.Compare(b.at) })
	outside := map[int]bool{}
	var out []span
	var began time.Time
	lost := false
	for _, e := range events {
		outside[e.node] = e.state != "no answer" && !strings.Contains(e.state, ", Primary of ")
		n := 0
		for _, o := range outside {
			if o {
				n++
			}
		}
		switch now := n > nodes/2; {
		case now && !lost:
			began, lost = e.at, true
		case !now && lost:
			out, lost = append(out, span{began, e.at}), false
		}
	}
	if lost {
		out = append(out, span{began, to})
	}
	return clip(out, from, to)
}

// intersect is the stretches both a and b cover.
func intersect(a, b []span) []span {
	var out []span
	for _, x := range a {
		out = append(out, clip(b, x.from, x.to)...)
	}
	slices.SortFunc(out, func(p, q span) int { return p.from.Compare(q.from) })
	return out
}

// union is the stretches a or b covers, each once.
func union(a, b []span) []span {
	all := append(slices.Clone(a), b...)
	slices.SortFunc(all, func(p, q span) int { return p.from.Compare(q.from) })
	var out []span
	for _, s := range all {
		if n := len(out); n > 0 && !s.from.After(out[n-1].to) {
			if s.to.After(out[n-1].to) {
				out[n-1].to = s.to
			}
			continue
		}
		out = append(out, s)
	}
	return out
}

// within says whether at falls in one of the spans, give or take slack.
func within(spans []span, at time.Time, slack time.Duration) bool {
	for _, s := range spans {
		if !at.Before(s.from.Add(-slack)) && !at.After(s.to.Add(slack)) {
			return true
		}
	}
	return false
}

// TestUnservedIsWhenNoNodeTookWrites: the failover test leaves out of its
// bound only the time in which no node committed a write promptly; a
// stall of one node while another took writes counts whole, and so does
// anything before the restart (the kill's own stall).
func TestUnservedIsWhenNoNodeTookWrites(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(math.Round(s*1000)) * time.Millisecond) }
	var writes []probeWrite
	// write adds node's writes every 100 ms in [from, to), each taking
	// took, failing when failed.
	write := func(node int, from, to, took float64, failed bool) {
		for x := from; x < to-1e-9; x += 0.1 {
			p := probeWrite{node: node, start: at(x), end: at(x + took)}
			if failed {
				p.err = fmt.Errorf("refused")
			}
			writes = append(writes, p)
		}
	}
	write(1, 0, 1, 0.01, false)
	writes = append(writes, probeWrite{node: 1, start: at(1), end: at(3)}) // the kill's stall on node 1
	write(1, 3, 10, 0.01, false)
	writes = append(writes, probeWrite{node: 1, start: at(10), end: at(12)}) // the rejoin's stall on node 1
	write(1, 12, 15, 0.01, false)
	write(1, 15, 15.1, 0.6, false) // slower than promptWrite on both
	write(1, 15.6, 20, 0.01, false)
	write(2, 0.05, 1.05, 0.01, false)
	writes = append(writes, probeWrite{node: 2, start: at(1.05), end: at(3.05)}) // the kill's stall on node 2
	write(2, 3.05, 5, 0.01, false)
	writes = append(writes, probeWrite{node: 2, start: at(5), end: at(8)}) // node 2 alone stalls: node 1 takes writes
	write(2, 8, 10.05, 0.01, false)
	writes = append(writes, probeWrite{node: 2, start: at(10.05), end: at(11.55)})
	write(2, 11.6, 11.7, 0.001, true) // refused (1047)
	write(2, 11.7, 15, 0.01, false)
	write(2, 15, 15.1, 0.6, false)
	write(2, 15.6, 16.5, 0.4, false) // slow but prompt
	write(2, 16.5, 20, 0.01, false)
	write(3, 0, 20, 0.001, true) // down all along
	slices.SortFunc(writes, func(a, b probeWrite) int { return a.start.Compare(b.start) })

	same := func(got, want []span) bool {
		if len(got) != len(want) {
			return false
		}
		for i := range want {
			if !got[i].from.Equal(want[i].from) || !got[i].to.Equal(want[i].to) {
				return false
			}
		}
		return true
	}
	all := unservedBy(writes, at(0), at(20.5))
	if want := []span{{at(1.05), at(3)}, {at(10.05), at(11.7)}, {at(15), at(15.6)}, {at(20.01), at(20.5)}}; !same(all, want) {
		t.Errorf("unserved over the whole run = %v, want %v", all, want)
	}
	// The failover test's excuse starts at the restart (8 s): the kill's
	// stall is not in it, and a span crossing its ends is cut there.
	excuse := unservedBy(writes, at(8), at(20))
	if want := []span{{at(10.05), at(11.7)}, {at(15), at(15.6)}}; !same(excuse, want) {
		t.Errorf("unserved from the restart = %v, want %v", excuse, want)
	}
	if got, want := unservedBy(writes, at(10.5), at(11)), []span{{at(10.5), at(11)}}; !same(got, want) {
		t.Errorf("unserved within a stall = %v, want %v", got, want)
	}
	if d := overlap(excuse, at(11), at(15.5)); d != 1200*time.Millisecond {
		t.Errorf("overlap(11, 15.5) = %s, want 1.2s", d)
	}
	if !within(excuse, at(11.65), 0) || within(excuse, at(12), 200*time.Millisecond) || !within(excuse, at(11.8), 200*time.Millisecond) {
		t.Errorf("within: a failure at 11.65 s is within the stall, one at 12 s is not, one at 11.8 s is with the slack")
	}
	stored := func(s ...float64) []try {
		var l []try
		for _, x := range s {
			l = append(l, try{at: at(x)})
		}
		return l
	}
	// 9.5 to 16 without a stored report: 6.5 s, of which 2.25 no node
	// took writes.
	if gap, from, whole := longestGap(stored(0.5, 2, 4, 6, 8, 9.5, 16, 17), at(0), at(17), excuse); gap != 4250*time.Millisecond || !from.Equal(at(9.5)) || whole != 6500*time.Millisecond {
		t.Errorf("longestGap = %s from %s (%s in all), want 4.25s from 9.5s (6.5s)", gap, from.Sub(t0), whole)
	}
	// 0.5 to 6.5, the kill's stall within: all 6 s count; and the stretch
	// after the last stored report until the end counts too.
	if gap, from, _ := longestGap(stored(0.5, 6.5, 8, 9), at(0), at(10), excuse); gap != 6*time.Second || !from.Equal(at(0.5)) {
		t.Errorf("longestGap over the kill's stall = %s from %s, want 6s from 0.5s", gap, from.Sub(t0))
	}
	if gap, from, _ := longestGap(stored(0.5, 2), at(0), at(9), excuse); gap != 7*time.Second || !from.Equal(at(2)) {
		t.Errorf("longestGap to the end = %s from %s, want 7s from 2s", gap, from.Sub(t0))
	}
}

// TestQuorumLostIsNoPrimaryComponentAndNoWrites: the failover test leaves
// out of its bound, from the kill on, only the time in which a majority
// of the nodes answered that they were outside the Primary component and
// no node took writes; a dead node's silence, or survivors still in the
// Primary component while writes stall (the kill's own stall), count.
func TestQuorumLostIsNoPrimaryComponentAndNoWrites(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 12, 2, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(math.Round(s*1000)) * time.Millisecond) }
	primary, outside := "Synced, Primary of 3, ready ON", "Initialized, non-Primary of 1, ready OFF"
	seen := []watchEvent{
		{at(0), 1, primary}, {at(0), 2, primary}, {at(0), 3, primary},
		{at(1), 3, "no answer"}, // killed at 1 s: silence is no vote
		{at(1.2), 1, "Synced, Primary of 2, ready ON"},
		{at(5), 2, outside},                          // one outside: node 1 still Primary
		{at(5.2), 1, outside},                        // both: no Primary component
		{at(9), 1, "Synced, Primary of 2, ready ON"}, // merged again
		{at(9.1), 2, "Synced, Primary of 2, ready ON"},
		{at(12), 1, outside}, {at(12), 2, "no answer"}, // one outside and one silent: not a majority
	}
	same := func(got, want []span) bool {
		return slices.EqualFunc(got, want, func(a, b span) bool { return a.from.Equal(b.from) && a.to.Equal(b.to) })
	}
	if got, want := noPrimary(seen, 3, at(0), at(15)), []span{{at(5.2), at(9)}}; !same(got, want) {
		t.Errorf("noPrimary = %v, want %v", got, want)
	}
	if got, want := noPrimary(seen, 3, at(6), at(8)), []span{{at(6), at(8)}}; !same(got, want) {
		t.Errorf("noPrimary within the loss = %v, want %v", got, want)
	}
	// Writes: the kill's stall 1-3 s (both survivors Primary), then taken
	// until 5 s, none 5-9.5 s, then taken.
	var writes []probeWrite
	for _, n := range []int{1, 2} {
		for x := 0.0; x < 15; x += 0.1 {
			p := probeWrite{node: n, start: at(x), end: at(x + 0.01)}
			switch {
			case x >= 1 && x < 3, x >= 5 && x < 9.5:
				p.err = fmt.Errorf("refused")
			}
			writes = append(writes, p)
		}
	}
	slices.SortFunc(writes, func(a, b probeWrite) int { return a.start.Compare(b.start) })
	w := &clusterWatch{nodes: 3, seen: seen, writes: writes}
	if got, want := w.quorumLost(at(1), at(15)), []span{{at(5.2), at(9)}}; !same(got, want) {
		t.Errorf("quorumLost = %v, want %v (the kill's stall 1-3 s is not in it)", got, want)
	}
	if got, want := union([]span{{at(1), at(3)}, {at(7), at(8)}}, []span{{at(2), at(4)}, {at(5), at(6)}}),
		[]span{{at(1), at(4)}, {at(5), at(6)}, {at(7), at(8)}}; !same(got, want) {
		t.Errorf("union = %v, want %v", got, want)
	}
}

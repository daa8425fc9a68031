package gormstore_test

import (
	"context"
	"database/sql"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// clusterWatch samples every node's Galera state each 100 ms while a
// test runs, so that a failure can say what the cluster did meanwhile: a
// node down, joining, donor, outside the Primary component, not ready,
// paused by flow control (a node's wsrep_flow_control_paused_ns grew by
// more than half the interval since the last sample), or its writes
// blocked (the watch's own one-row write on that node did not commit
// within a second). It keeps the changes only, each at the time its
// sample began.
type clusterWatch struct {
	nodes int
	stop  chan struct{}
	done  chan struct{}
	mu    sync.Mutex
	seen  []watchEvent
}

type watchEvent struct {
	at    time.Time
	node  int // 1-based
	state string
}

func watchCluster(t *testing.T, dsns []string) *clusterWatch {
	t.Helper()
	w := &clusterWatch{nodes: len(dsns), stop: make(chan struct{}), done: make(chan struct{})}
	dbs := make([]*sql.DB, len(dsns))
	for i, d := range dsns {
		cfg, err := mysqldrv.ParseDSN(d)
		if err != nil {
			t.Fatal(err)
		}
		cfg.Timeout, cfg.ReadTimeout = time.Second, time.Second
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params["wsrep_sync_wait"] = "0"
		c, err := mysqldrv.NewConnector(cfg)
		if err != nil {
			t.Fatal(err)
		}
		dbs[i] = sql.OpenDB(c)
		dbs[i].SetMaxOpenConns(1)
	}
	if err := createWatchTable(dbs); err != nil {
		t.Fatal(err)
	}
	go func() {
		defer close(w.done)
		defer func() {
			for _, db := range dbs {
				_ = db.Close()
			}
		}()
		last := make([]string, len(dbs))
		paused := make([]int64, len(dbs)) // wsrep_flow_control_paused_ns, -1 unknown
		tick := time.NewTicker(100 * time.Millisecond)
		defer tick.Stop()
		for {
			var wg sync.WaitGroup
			states := make([]string, len(dbs))
			now := time.Now()
			for i, db := range dbs {
				wg.Go(func() { states[i] = nodeState(db, i+1, &paused[i]) })
			}
			wg.Wait()
			w.mu.Lock()
			for i, s := range states {
				if s != last[i] {
					w.seen = append(w.seen, watchEvent{at: now, node: i + 1, state: s})
					last[i] = s
				}
			}
			w.mu.Unlock()
			select {
			case <-w.stop:
				return
			case <-tick.C:
			}
		}
	}()
	t.Cleanup(w.end)
	return w
}

// createWatchTable creates the watch's table through the first node and
// waits until every node has it.
func createWatchTable(dbs []*sql.DB) error {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	if _, err := dbs[0].ExecContext(ctx, "CREATE TABLE failover_watch (node INT PRIMARY KEY, at DATETIME(6) NOT NULL) ENGINE=InnoDB"); err != nil {
		return fmt.Errorf("the cluster watch's table: %w", err)
	}
	for i, db := range dbs {
		for {
			var n int
			err := db.QueryRowContext(ctx, "SELECT COUNT(*) FROM failover_watch").Scan(&n)
			if err == nil {
				break
			}
			if ctx.Err() != nil {
				return fmt.Errorf("node %d has not the cluster watch's table: %w", i+1, err)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	return nil
}

// nodeState is one node's state as the watch tells it; paused holds the
// node's flow-control pause counter between calls.
func nodeState(db *sql.DB, node int, paused *int64) string {
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
	ns, err := strconv.ParseInt(st["wsrep_flow_control_paused_ns"], 10, 64)
	if err == nil {
		if *paused >= 0 && ns-*paused > int64(50*time.Millisecond) {
			s += ", flow control paused"
		}
		*paused = ns
	}
	wctx, wcancel := context.WithTimeout(context.Background(), time.Second)
	defer wcancel()
	if _, err := db.ExecContext(wctx, "INSERT INTO failover_watch (node, at) VALUES (?, NOW(6)) ON DUPLICATE KEY UPDATE at = VALUES(at)", node); err != nil {
		s += ", writes blocked"
	}
	return s
}

// end stops the sampling (once).
func (w *clusterWatch) end() {
	select {
	case <-w.stop:
	default:
		close(w.stop)
	}
	<-w.done
}

// tell logs each node's state at since and every change after it (at
// most 80), each as its time after since.
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
	for n := 1; n <= w.nodes; n++ {
		if e, ok := before[n]; ok {
			t.Logf("cluster: at 0s node %d: %s (since %+.2fs)", n, e.state, e.at.Sub(since).Seconds())
		}
	}
	for i, e := range after {
		if i == 80 {
			t.Logf("cluster: ... %d more changes", len(after)-i)
			return
		}
		t.Logf("cluster: %+.2fs node %d: %s", e.at.Sub(since).Seconds(), e.node, e.state)
	}
}

// span is a stretch of time.
type span struct{ from, to time.Time }

// statusServing says whether a state the watch told is a node that says
// it takes writes: Synced, in the Primary component, ready.
func statusServing(state string) bool {
	return strings.HasPrefix(state, "Synced, Primary of ") && strings.Contains(state, ", ready ON")
}

// writesServing says whether it is a node that took the watch's write,
// unpaused by flow control, too.
func writesServing(state string) bool {
	return statusServing(state) && !strings.Contains(state, "flow control paused") && !strings.Contains(state, "writes blocked")
}

// unserved is the stretches in which the watch saw no node serving, as
// serving tells it, up to now.
func (w *clusterWatch) unserved(serving func(string) bool) []span {
	w.mu.Lock()
	defer w.mu.Unlock()
	var out []span
	state := map[int]string{}
	var down time.Time // when the current unserved stretch began; zero while some node serves
	for i, e := range w.seen {
		state[e.node] = e.state
		if i+1 < len(w.seen) && w.seen[i+1].at.Equal(e.at) {
			continue // one sample's changes are one step
		}
		some := false
		for _, s := range state {
			some = some || serving(s)
		}
		switch {
		case !some && down.IsZero():
			down = e.at
		case some && !down.IsZero():
			out = append(out, span{down, e.at})
			down = time.Time{}
		}
	}
	if !down.IsZero() {
		out = append(out, span{down, time.Now()})
	}
	return out
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
	for _, s := range spans {
		a, b := s.from, s.to
		if a.Before(from) {
			a = from
		}
		if b.After(to) {
			b = to
		}
		if b.After(a) {
			d += b.Sub(a)
		}
	}
	return d
}

// TestUnservedExcusesOnlyTheCluster: the failover test leaves out of its
// bound only the time in which no node served; a stall while one node
// served counts whole.
func TestUnservedExcusesOnlyTheCluster(t *testing.T) {
	t.Parallel()
	t0 := time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC)
	at := func(s float64) time.Time { return t0.Add(time.Duration(s * float64(time.Second))) }
	const ok, paused, blocked, nonPrim = "Synced, Primary of 3, ready ON", "Synced, Primary of 3, ready ON, flow control paused",
		"Synced, Primary of 3, ready ON, writes blocked", "Synced, non-Primary of 2, ready OFF, writes blocked"
	w := &clusterWatch{nodes: 3, seen: []watchEvent{
		{at(0), 1, ok}, {at(0), 2, ok}, {at(0), 3, ok},
		{at(1), 3, "no answer"},                      // node 3 killed
		{at(1.5), 1, blocked}, {at(1.5), 2, blocked}, // the cluster noticing: 1.5-3
		{at(3), 1, ok}, {at(3), 2, ok},
		{at(10), 1, paused}, {at(10), 2, paused}, // 10-12: flow control
		{at(12), 1, ok},
		{at(12.5), 2, ok},
		{at(14), 1, nonPrim}, {at(14), 2, nonPrim}, // 14-15: no Primary
		{at(15), 1, ok}, {at(15), 2, ok},
	}}
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
	if got, want := w.unserved(statusServing), []span{{at(14), at(15)}}; !same(got, want) {
		t.Errorf("unserved(statusServing) = %v, want %v", got, want)
	}
	writes := w.unserved(writesServing)
	if want := []span{{at(1.5), at(3)}, {at(10), at(12)}, {at(14), at(15)}}; !same(writes, want) {
		t.Errorf("unserved(writesServing) = %v, want %v", writes, want)
	}
	// The test's excuse: the status before the restart (at 8), the
	// writes after it; the kill's own stall (1.5-3) is not excused.
	excuse := append(clip(w.unserved(statusServing), at(1), at(8)), clip(writes, at(8), at(20))...)
	if want := []span{{at(10), at(12)}, {at(14), at(15)}}; !same(excuse, want) {
		t.Errorf("excuse = %v, want %v", excuse, want)
	}
	if d := overlap(excuse, at(11), at(14.5)); d != 1500*time.Millisecond {
		t.Errorf("overlap(11, 14.5) = %s, want 1.5s", d)
	}
	stored := func(s ...float64) []try {
		var l []try
		for _, x := range s {
			l = append(l, try{at: at(x)})
		}
		return l
	}
	// 9 to 16 without a stored report: 7 s, of which 3 no node served.
	if gap, from, whole := longestGap(stored(0.5, 2, 4, 6, 8, 9, 16, 17), at(0), at(17), excuse); gap != 4*time.Second || !from.Equal(at(9)) || whole != 7*time.Second {
		t.Errorf("longestGap = %s from %s (%s in all), want 4s from 9s (7s)", gap, from.Sub(t0), whole)
	}
	// 0.5 to 6, the kill's stall within: all 5.5 s count.
	if gap, _, _ := longestGap(stored(0.5, 6, 8, 9, 10, 16), at(0), at(16), excuse); gap != 5500*time.Millisecond {
		t.Errorf("longestGap over the kill's stall = %s, want 5.5s", gap)
	}
}

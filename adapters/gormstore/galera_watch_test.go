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
// or the cluster paused by flow control (a node's wsrep_flow_control_
// paused_ns grew by more than half the interval since the last sample).
// It keeps the changes only.
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
			for i, db := range dbs {
				wg.Go(func() { states[i] = nodeState(db, &paused[i]) })
			}
			wg.Wait()
			now := time.Now()
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

// nodeState is one node's state as the watch tells it; paused holds the
// node's flow-control pause counter between calls.
func nodeState(db *sql.DB, paused *int64) string {
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

// serving says whether a state the watch told is a node that takes
// writes: Synced, in the Primary component, ready, not paused by flow
// control.
func serving(state string) bool {
	return strings.HasPrefix(state, "Synced, Primary of ") && strings.HasSuffix(state, ", ready ON")
}

// unserved is the stretches the watch saw no node serving, up to now.
func (w *clusterWatch) unserved() []span {
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
	ok, paused, nonPrim := "Synced, Primary of 3, ready ON", "Synced, Primary of 3, ready ON, flow control paused", "Synced, non-Primary of 2, ready OFF"
	w := &clusterWatch{nodes: 3, seen: []watchEvent{
		{at(0), 1, ok}, {at(0), 2, ok}, {at(0), 3, ok},
		{at(1), 3, "no answer"},                  // node 3 killed: nodes 1 and 2 serve
		{at(10), 1, paused}, {at(10), 2, paused}, // 10-12: flow control
		{at(12), 1, ok},
		{at(12.5), 2, ok},
		{at(14), 1, nonPrim}, {at(14), 2, nonPrim}, // 14-15: no Primary
		{at(15), 1, ok}, {at(15), 2, ok},
	}}
	got := w.unserved()
	want := []span{{at(10), at(12)}, {at(14), at(15)}}
	if len(got) != len(want) {
		t.Fatalf("unserved = %v, want %v", got, want)
	}
	for i := range want {
		if !got[i].from.Equal(want[i].from) || !got[i].to.Equal(want[i].to) {
			t.Fatalf("unserved = %v, want %v", got, want)
		}
	}
	if d := overlap(got, at(11), at(14.5)); d != 1500*time.Millisecond {
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
	if gap, from, whole := longestGap(stored(0.5, 2, 4, 6, 8, 9, 16, 17), at(0), at(17), got); gap != 4*time.Second || !from.Equal(at(9)) || whole != 7*time.Second {
		t.Errorf("longestGap = %s from %s (%s in all), want 4s from 9s (7s)", gap, from.Sub(t0), whole)
	}
	// 2 to 8 while nodes 1 and 2 served: all 6 s count.
	if gap, _, _ := longestGap(stored(2, 8, 9, 10, 16), at(0), at(16), got); gap != 6*time.Second {
		t.Errorf("longestGap over a stall while nodes served = %s, want 6s", gap)
	}
}

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

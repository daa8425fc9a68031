package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// The node a replica's pools use, when store.dsn lists several (nodes.go).
// A nodeSet probes every node's Galera state each probeEvery, and at once
// (at most every probeGap) when a connection to its current node fails:
//
//   - while the current node serves (galeraServing: ready, Primary,
//     Synced) the pools stay on it, unless a node earlier in the list has
//     served settleProbes probes in a row: they move back to it;
//   - when it does not serve, or does not answer within probeLimit, they
//     move to the first node of the list that serves;
//   - when none serves, they stay, and readiness says so.
//
// Moving is a new epoch: a connection of an earlier epoch is refused by
// the pool when it next takes or returns it (nodeConn), and new
// connections dial the chosen node, so every pool of the replica (writes,
// reads, look-ups, the group commit's, the throttle's) writes to one node
// at a time.
const (
	probeEvery   = time.Second
	probeLimit   = time.Second
	probeGap     = 200 * time.Millisecond
	settleProbes = 2
)

// choice is the node the pools dial now, and its epoch.
type choice struct {
	node  int
	epoch uint64
}

// nodeSet is a replica's Galera nodes, in preference order, and the one
// its pools use. Its probe goroutine ends at close.
type nodeSet struct {
	probes  []*sql.DB // one connection each, without causal reads
	current atomic.Pointer[choice]
	streak  []int // the serving probes in a row of each node (the goroutine's)
	kick    chan struct{}
	stop    chan struct{}
	done    chan struct{}
	closed  sync.Once
	moves   atomic.Int64
	addrs   []string              // each node's host:port, for onMove
	onMove  func(from, to string) // called on the probe goroutine after a move; may be nil
}

// newNodeSet probes the nodes of dsns (MySQLDSNs, one per node) and
// starts on the first that serves, or on the first if none answers yet
// (the service starts not ready and moves when one serves).
func newNodeSet(dsns []string, onMove func(from, to string)) (*nodeSet, error) {
	n := &nodeSet{streak: make([]int, len(dsns)), kick: make(chan struct{}, 1),
		stop: make(chan struct{}), done: make(chan struct{}), onMove: onMove}
	for _, d := range dsns {
		cfg, err := mysqldrv.ParseDSN(d)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("store.dsn: a node's DSN: %w", err), n.closeProbes())
		}
		// The probe reads only the node's status: it must not wait for
		// the node to apply the cluster's writes first.
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params[syncWait] = "0"
		n.addrs = append(n.addrs, cfg.Addr)
		c, err := mysqldrv.NewConnector(cfg)
		if err != nil {
			return nil, errors.Join(fmt.Errorf("store.dsn: a node's DSN: %w", err), n.closeProbes())
		}
		db := sql.OpenDB(c)
		db.SetMaxOpenConns(1)
		db.SetMaxIdleConns(1)
		n.probes = append(n.probes, db)
	}
	first := 0
	serving := n.probeAll()
	for i, ok := range serving {
		if ok {
			first = i
			break
		}
	}
	n.current.Store(&choice{node: first})
	go n.run()
	return n, nil
}

// node returns the node the pools dial now and its epoch.
func (n *nodeSet) node() choice { return *n.current.Load() }

// wake asks for a probe now: a connection to the current node failed.
func (n *nodeSet) wake() {
	select {
	case n.kick <- struct{}{}:
	default:
	}
}

// Moves counts the times the pools moved to another node.
func (n *nodeSet) Moves() int64 { return n.moves.Load() }

// position is the place in the list (1 = first) of the node the pools
// dial now.
func (n *nodeSet) position() int { return n.node().node + 1 }

func (n *nodeSet) run() {
	defer close(n.done)
	tick := time.NewTicker(probeEvery)
	defer tick.Stop()
	gap := time.NewTimer(0)
	defer gap.Stop()
	for {
		select {
		case <-n.stop:
			return
		case <-tick.C:
		case <-n.kick:
		}
		n.choose(n.probeAll())
		gap.Reset(probeGap)
		select {
		case <-n.stop:
			return
		case <-gap.C:
		}
	}
}

// choose moves the pools as the type's comment says, given which nodes
// serve.
func (n *nodeSet) choose(serving []bool) {
	for i, ok := range serving {
		if ok {
			n.streak[i]++
		} else {
			n.streak[i] = 0
		}
	}
	cur := n.node()
	target := cur.node
	if serving[cur.node] {
		for i := 0; i < cur.node; i++ {
			if n.streak[i] >= settleProbes {
				target = i
				break
			}
		}
	} else {
		for i, ok := range serving {
			if ok {
				target = i
				break
			}
		}
	}
	if target != cur.node {
		n.current.Store(&choice{node: target, epoch: cur.epoch + 1})
		n.moves.Add(1)
		if n.onMove != nil {
			n.onMove(n.addrs[cur.node], n.addrs[target])
		}
	}
}

// probeAll probes every node at once, each within probeLimit.
func (n *nodeSet) probeAll() []bool {
	out := make([]bool, len(n.probes))
	var wg sync.WaitGroup
	for i, db := range n.probes {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(context.Background(), probeLimit)
			defer cancel()
			out[i] = probe(ctx, db) == nil
		})
	}
	wg.Wait()
	return out
}

// probe says whether db's node serves: a Galera node, ready, Primary and
// Synced. A server without Galera does not: a list of nodes is a
// cluster's.
func probe(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	return galeraServing(ctx, conn)
}

// close stops the probes and waits for them.
func (n *nodeSet) close() error {
	var err error
	n.closed.Do(func() {
		close(n.stop)
		<-n.done
		err = n.closeProbes()
	})
	return err
}

func (n *nodeSet) closeProbes() error {
	var errs []error
	for _, db := range n.probes {
		errs = append(errs, db.Close())
	}
	return errors.Join(errs...)
}

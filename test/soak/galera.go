package soak

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// Galera runs the soak on a Galera cluster: replica i writes to node i,
// and one node after another is SIGKILLed and restarted (by IST) while
// the load runs; at the end every node must hold the same rows.
type Galera struct {
	DSNs    []string             // the soak's database on each node, straight to it
	Kill    func(node int) error // SIGKILLs node (0-based)
	Restart func(node int) error // restarts it and returns once it is Synced
	Every   time.Duration        // between kills; the first at KillAt (default 2m)
}

// ForDatabase points every node's DSN at the database name, with causal
// reads (wsrep_sync_wait=1), as the operator guide's Galera DSNs are.
func (g *Galera) ForDatabase(name string) error {
	for i, d := range g.DSNs {
		cfg, err := mysqldrv.ParseDSN(d)
		if err != nil {
			return fmt.Errorf("node %d's DSN: %w", i, err)
		}
		cfg.DBName = name
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params["wsrep_sync_wait"] = "1"
		g.DSNs[i] = cfg.FormatDSN()
	}
	return nil
}

// NodeKill is one node's death and what the partners saw meanwhile: the
// 503s (but file_store_failed, the bucket's faults) and unanswered POSTs
// from its SIGKILL until 30 s after it was Synced again, and the first
// and last of them.
type NodeKill struct {
	Node              int
	Killed, Restarted time.Time
	Unavailable       int64
	Kinds             map[string]int64 // Unavailable by answer
	First, Last       time.Time
	Err               error
}

// NodeTables is one node's view of the soak's tables at the end.
type NodeTables struct {
	Rows      int
	Checksums map[string]int64 // CHECKSUM TABLE, by table
}

// galeraTables are the tables compared across nodes.
var galeraTables = []string{"partner_disbursement_staging", "idempotency_keys", "upload_files"}

// killAftermath is how long after a restart a 503 still counts toward
// its kill.
const killAftermath = 30 * time.Second

// killNodes SIGKILLs node 1, 2, …, 0, 1, … in turn: the first at KillAt,
// then every Every while the load runs; each stays down for Down and is
// restarted (it rejoins by IST) before the next.
func (s *soak) killNodes(ctx context.Context, stopped *atomic.Bool) error {
	g := s.c.Galera
	next := s.res.LoadStarted.Add(s.c.KillAt)
	for k := 0; ; k++ {
		for time.Now().Before(next) { // until the next kill, or the load's end
			select {
			case <-time.After(min(time.Until(next), 250*time.Millisecond)):
			case <-ctx.Done():
				return nil
			}
			if stopped.Load() {
				return nil
			}
		}
		node := (k + 1) % len(g.DSNs)
		nk := NodeKill{Node: node}
		if err := g.Kill(node); err != nil {
			return fmt.Errorf("kill node %d: %w", node, err)
		}
		nk.Killed = time.Now()
		s.res.addKill(nk)
		s.c.Progress("soak: node %d SIGKILLed at +%s", node, nk.Killed.Sub(s.res.LoadStarted).Round(time.Millisecond))
		select {
		case <-time.After(s.c.Down):
		case <-ctx.Done():
		}
		err := g.Restart(node)
		s.res.restarted(node, time.Now(), err)
		if err != nil {
			return fmt.Errorf("restart node %d: %w", node, err)
		}
		s.c.Progress("soak: node %d Synced again at +%s", node, time.Since(s.res.LoadStarted).Round(time.Millisecond))
		next = next.Add(g.Every)
	}
}

func (r *Result) addKill(k NodeKill) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.NodeKills = append(r.NodeKills, k)
}

func (r *Result) restarted(node int, at time.Time, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	k := &r.NodeKills[len(r.NodeKills)-1]
	k.Restarted, k.Err = at, err
}

// unavailable counts a 503 or an unanswered POST at t toward the latest
// node kill whose window holds t.
func (r *Result) unavailable(t time.Time, kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.NodeKills) == 0 {
		if r.Baseline == nil {
			r.Baseline = map[string]int64{}
		}
		r.Baseline[kind]++
		return
	}
	for i := len(r.NodeKills) - 1; i >= 0; i-- {
		k := &r.NodeKills[i]
		if t.Before(k.Killed) || (!k.Restarted.IsZero() && t.After(k.Restarted.Add(killAftermath))) {
			continue
		}
		k.Unavailable++
		if k.Kinds == nil {
			k.Kinds = map[string]int64{}
		}
		k.Kinds[kind]++
		if k.First.IsZero() {
			k.First = t
		}
		k.Last = t
		return
	}
}

// compareNodes reads every node's rows, row counts and checksums: each
// node must hold exactly the rows of the first (which verify compares
// with the answers), and the same tables. The replicas still run (their
// sweeps may change upload_files between one node's CHECKSUM TABLE and
// the next's, and a node may not have applied the last of it yet), so
// the checksums are read from every node in one pass, again up to
// checksumPasses times a second apart, until a pass agrees; only
// checksums that never agreed are a violation.
func (s *soak) compareNodes(ctx context.Context, first []row) error {
	ids := func(rows []row) []int64 {
		out := make([]int64, len(rows))
		for i, w := range rows {
			out[i] = w.id
		}
		slices.Sort(out)
		return out
	}
	want := ids(first)
	nodes := make([]NodeTables, len(s.c.Galera.DSNs))
	for i, dsn := range s.c.Galera.DSNs {
		rows, err := rowsOf(ctx, dsn)
		if err != nil {
			return fmt.Errorf("node %d: %w", i, err)
		}
		nodes[i].Rows = len(rows)
		if !slices.Equal(ids(rows), want) {
			s.res.violation("node %d holds %d rows, node 0 %d, and not the same ids", i, len(rows), len(first))
		}
	}
	var differ []string
	for pass := 1; ; pass++ {
		differ = differ[:0]
		for i, dsn := range s.c.Galera.DSNs {
			sums, err := checksums(ctx, dsn)
			if err != nil {
				return fmt.Errorf("node %d: %w", i, err)
			}
			nodes[i].Checksums = sums
			for _, t := range galeraTables {
				if i > 0 && nodes[0].Checksums[t] != sums[t] {
					differ = append(differ, fmt.Sprintf("node %d: CHECKSUM TABLE %s = %d, node 0's %d (pass %d)", i, t, sums[t], nodes[0].Checksums[t], pass))
				}
			}
		}
		if len(differ) == 0 || pass == checksumPasses {
			break
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(time.Second):
		}
	}
	for _, d := range differ {
		s.res.violation("%s", d)
	}
	s.res.Nodes = nodes
	return nil
}

// checksumPasses bounds compareNodes' passes over the nodes' checksums.
const checksumPasses = 10

// checksums reads CHECKSUM TABLE of each of galeraTables on dsn's node.
func checksums(ctx context.Context, dsn string) (map[string]int64, error) {
	db, err := sql.Open("mysql", dsn)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	sums := map[string]int64{}
	for _, t := range galeraTables {
		var name string
		var sum sql.NullInt64
		if err := db.QueryRowContext(ctx, "CHECKSUM TABLE "+t).Scan(&name, &sum); err != nil {
			return nil, fmt.Errorf("checksum %s: %w", t, err)
		}
		sums[t] = sum.Int64
	}
	return sums, nil
}

// readConflicts sums the replicas' disbursementd_store_conflicts_total.
func (s *soak) readConflicts(ctx context.Context) {
	for i := range s.c.Replicas {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.fleet.url(i)+"/metrics", nil)
		if err != nil {
			continue
		}
		resp, err := s.client.Do(req)
		if err != nil {
			continue
		}
		sc := bufio.NewScanner(resp.Body)
		for sc.Scan() {
			if v, ok := strings.CutPrefix(sc.Text(), "disbursementd_store_conflicts_total "); ok {
				if f, err := strconv.ParseFloat(v, 64); err == nil {
					s.res.Conflicts += int64(f)
				}
			}
		}
		_ = resp.Body.Close()
	}
}

// printGalera writes the Galera lines of the counts.
func (r *Result) printGalera(p func(string, ...any)) {
	if len(r.NodeKills) == 0 && len(r.Nodes) == 0 {
		return
	}
	if len(r.NodeKills) > 0 {
		p("before any kill:    %s in %s (the same answers, for comparison)",
			counts(r.Baseline), r.NodeKills[0].Killed.Sub(r.LoadStarted).Round(100*time.Millisecond))
	}
	for _, k := range r.NodeKills {
		seen := "none"
		if k.Unavailable > 0 {
			seen = fmt.Sprintf("%d (%s), from +%s to +%s (%s)", k.Unavailable, counts(k.Kinds), k.First.Sub(k.Killed).Round(100*time.Millisecond),
				k.Last.Sub(k.Killed).Round(100*time.Millisecond), k.Last.Sub(k.First).Round(100*time.Millisecond))
		}
		p("node %d SIGKILL:     at +%s, Synced again %s later; 503s and unanswered POSTs after the kill: %s",
			k.Node, k.Killed.Sub(r.LoadStarted).Round(100*time.Millisecond), k.Restarted.Sub(k.Killed).Round(100*time.Millisecond), seen)
	}
	p("1213 run again:     %d group commits (disbursementd_store_conflicts_total, all replicas)", r.Conflicts)
	for i, n := range r.Nodes {
		p("node %d tables:      %d rows; CHECKSUM TABLE %v", i, n.Rows, n.Checksums)
	}
}

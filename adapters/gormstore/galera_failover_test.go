package gormstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// failoverBound is issue 37's promise: partners see 503 for at most this
// long after their replica's node dies, while another node takes writes.
const failoverBound = 5 * time.Second

// TestStoreFailoverGalera: a replica whose store.dsn lists the test
// cluster's nodes (node 3 first, then 1, then 2) writes to node 3 until
// it is SIGKILLed under load; within failoverBound of the kill every
// report is stored again (through another node), no store call fails
// later than that, the replica moves back to node 3 once it has rejoined
// (restarted by IST), and every report it acknowledged is on node 1 and
// on node 3 afterwards. From node 3's restart on, time in which no node
// took writes (a clusterWatch writes a row on each every 100 ms) is left
// out of the bounds and told: a rejoin can block every node's writes for
// a while (here about 1 s; on CI's loaded machine one rejoin left the
// replica's node blocked for 6.5 s, then outside the Primary component),
// and no replica can store through that. The kill's own stall is never
// left out.
func TestStoreFailoverGalera(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("kills and restarts a node of the test cluster (half a minute): not in -short (CI runs it)")
	}
	storetest.HoldGaleraNodes(t) // no other test uses the cluster meanwhile
	dsns := storetest.MustCreateGaleraDatabase(t)
	dir := os.Getenv("GALERA_DIR")
	if dir == "" {
		t.Fatal("GALERA_DIR is not set: the test kills and restarts a node of test/galera.sh's cluster")
	}
	var movesMu sync.Mutex
	var moves []string // "from>to", as OnNodeMove told them
	var movedAt []time.Time
	st := storetest.MustOpen(t, gormstore.MySQL, storetest.NodeList(t, dsns, 2), gormstore.Options{
		OnNodeMove: func(from, to string) {
			movesMu.Lock()
			moves, movedAt = append(moves, from+">"+to), append(movedAt, time.Now())
			movesMu.Unlock()
		}})
	watch := watchCluster(t, dsns)
	var killed time.Time
	var excusedAny bool
	t.Cleanup(func() { // what the replica and the cluster did, so that a failure (or an excuse) says why, a t.Fatal's too
		if killed.IsZero() || !(t.Failed() || excusedAny) {
			return
		}
		movesMu.Lock()
		for i, m := range moves {
			t.Logf("replica: %+.2fs moved %s", movedAt[i].Sub(killed).Seconds(), m)
		}
		movesMu.Unlock()
		watch.tell(t, killed)
	})
	n3 := nodeAddr(t, dsns[2])
	// At open the store takes the first node that serves: node 3 may be
	// slow to answer its first check on a busy machine (or still joining
	// after an earlier test's restart); the replica prefers it and moves
	// to it once it has served two checks in a row.
	if waitNode(st, "n3", time.Minute) == 0 {
		t.Fatalf("the replica writes to %q, want n3, the first of its list, within a minute of opening", nodeName(t, st))
	}
	if st.NodePosition() != 1 {
		t.Errorf("on node 3, the first of its list, NodePosition = %d, want 1", st.NodePosition())
	}
	movesBefore := st.NodeMoves()
	load := startFailoverLoad(t, st, 8)
	time.Sleep(2 * time.Second)
	killed = time.Now()
	galeraNode(t, dir, "kill", 3)
	time.Sleep(failoverBound + 3*time.Second)
	if got := nodeName(t, st); got == "n3" || got == "" {
		t.Errorf("%s after node 3's kill the replica writes to %q", time.Since(killed).Round(time.Millisecond), got)
	}
	// What the operator sees (disbursementd_store_node, its moves, the
	// log line): the pools left the first node of the list.
	if p := st.NodePosition(); p < 2 {
		t.Errorf("after node 3's kill NodePosition = %d, want 2 or 3", p)
	}
	movesMu.Lock()
	left := len(moves) > 0 && strings.HasPrefix(moves[len(moves)-1], n3+">")
	movesMu.Unlock()
	if !left || st.NodeMoves() <= movesBefore {
		t.Errorf("after node 3's kill: moves told %q, NodeMoves %d (before %d); want the last from %s", moves, st.NodeMoves(), movesBefore, n3)
	}
	restarting := time.Now()
	galeraNode(t, dir, "restart", 3)
	rejoined := time.Now()
	back := waitNode(st, "n3", 20*time.Second)
	if back == 0 {
		t.Errorf("the replica did not move back to node 3 within 20 s of its rejoining")
	} else {
		t.Logf("moved back to node 3 %s after it rejoined", back.Round(time.Millisecond))
		movesMu.Lock()
		told := append([]string(nil), moves...)
		movesMu.Unlock()
		if st.NodePosition() != 1 || len(told) == 0 || !strings.HasSuffix(told[len(told)-1], ">"+n3) || int64(len(told)) != st.NodeMoves() {
			t.Errorf("back on node 3: NodePosition %d, moves told %q, NodeMoves %d; want 1, the last to %s, one told per move",
				st.NodePosition(), told, st.NodeMoves(), n3)
		}
	}
	time.Sleep(time.Second)
	acked, log := load.stop()
	stopped := time.Now()

	// The bound is the replica's: a node that dies costs at most
	// failoverBound, the cluster's own stall while it notices included.
	// From node 3's restart on, a stretch in which no node took the
	// watch's writes is the cluster's (no replica can store then): a
	// failure within one, and the stretch's time in a gap, are told and
	// left out of the bound.
	watch.end() // no write in flight: a slow last write must not read as none
	rejoin := watch.unserved(restarting, stopped)
	// From the kill on, a stretch in which the cluster had no Primary
	// component and no node took writes is the cluster's too: the
	// survivors lost each other (on CI's loaded machine both went
	// "non-Primary of 1" 4 s after a kill, for 7.5 s).
	lost := watch.quorumLost(killed, stopped)
	excuse := union(rejoin, lost)
	const slack = 200 * time.Millisecond
	var lastFail, lastLate time.Time
	var fails int
	var late, excused []try
	for _, a := range log {
		if a.err == nil {
			continue
		}
		fails++
		lastFail = a.at
		switch {
		case a.at.Before(killed):
			t.Errorf("a store call failed %s before the kill: %v", killed.Sub(a.at).Round(time.Millisecond), a.err)
		case a.at.Sub(killed) <= failoverBound:
		case !a.at.Before(restarting) && within(rejoin, a.at, slack), within(lost, a.at, slack):
			excused = append(excused, a)
		default:
			late, lastLate = append(late, a), a.at
		}
	}
	gap, gapFrom, whole := longestGap(log, killed, rejoined, excuse)
	t.Logf("%d reports acknowledged, %d failed tries, the last %s after the kill; longest time without a stored report after the kill: %s (less %s in which no node took writes), from %s after it; node 3 rejoined %s after the kill; no node took writes for %s in all after its restart; the cluster had no Primary component and took no writes for %s",
		len(acked), fails, lastFail.Sub(killed).Round(time.Millisecond), gap.Round(time.Millisecond), (whole - gap).Round(time.Millisecond),
		gapFrom.Sub(killed).Round(time.Millisecond), rejoined.Sub(killed).Round(time.Millisecond),
		overlap(rejoin, restarting, stopped).Round(time.Millisecond), overlap(lost, killed, stopped).Round(time.Millisecond))
	excusedAny = len(excuse) > 0
	for _, a := range excused[:min(len(excused), 5)] {
		t.Logf("left out: failed %s after the kill while no node took writes (a try of %s): %v", a.at.Sub(killed).Round(time.Millisecond), a.took.Round(time.Millisecond), a.err)
	}
	if len(late) > 0 {
		t.Errorf("a store call failed %s after the kill, want none after %s but while no node took writes", lastLate.Sub(killed).Round(time.Millisecond), failoverBound)
		for _, a := range late[:min(len(late), 5)] { // what failed late, so that a failure says why
			t.Logf("failed %s after the kill (a try of %s): %v", a.at.Sub(killed).Round(time.Millisecond), a.took.Round(time.Millisecond), a.err)
		}
	}
	if gap > failoverBound {
		t.Errorf("no report was stored for %s after the kill (less the time no node took writes), want at most %s", gap.Round(time.Millisecond), failoverBound)
	}
	if back, from, _ := longestGap(log, rejoined, stopped, nil); back > failoverBound { // told, not held: the bound is the kill's
		t.Logf("after node 3 rejoined: no report stored for %s, from %s after the kill", back.Round(time.Millisecond), from.Sub(killed).Round(time.Millisecond))
	}
	for _, node := range []int{0, 2} {
		if missing := missingReports(t, dsns[node], acked); missing != 0 {
			t.Errorf("node %d lacks %d of the %d acknowledged reports", node+1, missing, len(acked))
		}
	}
}

// nodeAddr is the host:port of dsn.
func nodeAddr(t *testing.T, dsn string) string {
	t.Helper()
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		t.Fatal(err)
	}
	return cfg.Addr
}

// nodeName is the Galera node the store writes to ("" when none answers).
func nodeName(t *testing.T, st *gormstore.Store) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	var name string
	if err := gormstore.Pool(st).QueryRowContext(ctx, "SELECT @@wsrep_node_name").Scan(&name); err != nil {
		t.Logf("the store's node: %v", err)
		return ""
	}
	return name
}

// waitNode waits until the store writes to node, and returns how long it
// took (0: not within limit).
func waitNode(st *gormstore.Store, node string, limit time.Duration) time.Duration {
	start := time.Now()
	for time.Since(start) < limit {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		var name string
		err := gormstore.Pool(st).QueryRowContext(ctx, "SELECT @@wsrep_node_name").Scan(&name)
		cancel()
		if err == nil && name == node {
			return max(time.Since(start), time.Nanosecond)
		}
		time.Sleep(100 * time.Millisecond)
	}
	return 0
}

// galeraNode runs test/galera.sh's verb (kill, restart) on node n.
func galeraNode(t *testing.T, dir, verb string, n int) {
	t.Helper()
	cmd := exec.Command("bash", filepath.Join("..", "..", "test", "galera.sh"), verb, fmt.Sprint(n))
	cmd.Env = append(os.Environ(), "GALERA_DIR="+dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("galera.sh %s %d: %v\n%s", verb, n, err, out)
	}
}

var failoverNonces atomic.Int64

// try is one store call of the load: when it ended, and its error.
type try struct {
	at   time.Time // when the try ended
	took time.Duration
	err  error
}

// failoverLoad is writers storing reports through one store until
// stopped, each report tried again every 200 ms until stored (as a
// partner tries again on 503), at most 50 times.
type failoverLoad struct {
	cancel context.CancelFunc
	wg     sync.WaitGroup
	mu     sync.Mutex
	acked  []int64
	log    []try
}

func startFailoverLoad(t *testing.T, st *gormstore.Store, writers int) *failoverLoad {
	ctx, cancel := context.WithCancel(context.Background())
	l := &failoverLoad{cancel: cancel}
	for w := range writers {
		l.wg.Go(func() {
			for i := 0; ctx.Err() == nil; i++ {
				l.report(ctx, t, st, fmt.Sprintf("fo-%d-%d", w, i))
			}
		})
	}
	t.Cleanup(func() { l.stop() }) // a t.Fatal's too: no writer outlives the test
	return l
}

func (l *failoverLoad) report(ctx context.Context, t *testing.T, st *gormstore.Store, key string) {
	now := time.Now().UTC().Truncate(time.Millisecond)
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(fixture.Minimal(now, "CR-"+key)), fixture.FileRules(), now)
	if err != nil {
		t.Error(err)
		return
	}
	staged := domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PayloadSHA256: "p"}
	rec := domain.IdempotencyRecord{User: "acme", KeyHash: domain.KeyHash(key, ""), PayloadSHA256: "p",
		State: domain.KeyDone, Nonce: fmt.Sprintf("%032d", failoverNonces.Add(1)), CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	for range 50 {
		callCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		began := time.Now()
		id, existing, err := st.StoreReport(callCtx, staged, rec)
		cancel()
		if errors.Is(err, domain.ErrConflict) && existing.Nonce == rec.Nonce {
			id, err = existing.ReportID, nil // an earlier try was stored
		}
		end := time.Now()
		l.mu.Lock()
		l.log = append(l.log, try{at: end, took: end.Sub(began), err: err})
		if err == nil {
			l.acked = append(l.acked, id)
		}
		l.mu.Unlock()
		if err == nil || ctx.Err() != nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// stop ends the load and returns the reports it stored and its tries.
func (l *failoverLoad) stop() ([]int64, []try) {
	l.cancel()
	l.wg.Wait()
	return l.acked, l.log
}

// longestGap is the longest time within [from, to] without a stored
// report, less the time the excuse's spans cover; when it began, and
// its whole length.
func longestGap(log []try, from, to time.Time, excuse []span) (time.Duration, time.Time, time.Duration) {
	last, gap, began, whole := from, time.Duration(0), from, time.Duration(0)
	consider := func(end time.Time) {
		if d := end.Sub(last) - overlap(excuse, last, end); d > gap {
			gap, began, whole = d, last, end.Sub(last)
		}
	}
	for _, a := range log { // in the order the tries ended
		if a.err != nil || a.at.Before(from) || a.at.After(to) {
			continue
		}
		consider(a.at)
		last = a.at
	}
	consider(to)
	return gap, began, whole
}

// missingReports counts the ids of acked that dsn's node does not hold.
func missingReports(t *testing.T, dsn string, acked []int64) int {
	t.Helper()
	db, err := storetest.OpenSQL(gormstore.MySQL, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	rows, err := db.Query("SELECT id FROM " + gormstore.StagingTable)
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	held := map[int64]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			t.Fatal(err)
		}
		held[id] = true
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	missing := 0
	for _, id := range acked {
		if !held[id] {
			missing++
		}
	}
	return missing
}

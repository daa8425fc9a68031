package storetest

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// A Galera test that fails on the cluster's doing (a node that stalls its
// commits or refuses a causal read: 1205 at BEGIN, seen in CI on 8175791
// with no trace of why) tells what the nodes did meanwhile: each node's
// error log (test/galera.sh's, under GALERA_DIR; a cluster named only by
// DISB_TEST_GALERA_DSNS prints none) is read from where it stood when the
// test took the cluster, and its warnings, errors, state shifts and view
// changes are printed when the test failed, with each node's wsrep status
// then (its state, its receive queue, the time flow control paused it,
// its last committed seqno: a causal read that timed out leaves no line
// in the log, only a node behind the others). Once per outermost test
// that takes the cluster: a subtest's failure fails its parent too.
var galeraLogged sync.Map // test name → true, for the tests that print

// maxNodeLogLines is how many of a node's lines a failure prints (the
// last ones).
const maxNodeLogLines = 60

func tellGaleraLogsOnFailure(tb testing.TB) {
	dir := os.Getenv("GALERA_DIR")
	if dir == "" {
		return
	}
	name := tb.Name()
	for i := range name {
		if name[i] == '/' {
			if _, ok := galeraLogged.Load(name[:i]); ok {
				return // a parent test prints
			}
		}
	}
	if _, loaded := galeraLogged.LoadOrStore(name, true); loaded {
		return
	}
	logs, _ := filepath.Glob(filepath.Join(dir, "n*", "error.log"))
	from := make([]int64, len(logs))
	for i, l := range logs {
		if fi, err := os.Stat(l); err == nil {
			from[i] = fi.Size()
		}
	}
	tb.Cleanup(func() {
		galeraLogged.Delete(name)
		if !tb.Failed() {
			return
		}
		for _, dsn := range strings.Split(os.Getenv(EnvGaleraDSNs), ",") {
			tb.Logf("galera %s", nodeStatus(dsn))
		}
		for i, l := range logs {
			lines, err := nodeLogSince(l, from[i])
			node := filepath.Base(filepath.Dir(l))
			switch {
			case err != nil:
				tb.Logf("galera %s: its error log: %v (read before it: %d lines of note)\n%s", node, err, len(lines), strings.Join(lines, "\n"))
			case len(lines) == 0:
				tb.Logf("galera %s: nothing of note in its error log during the test", node)
			default:
				tb.Logf("galera %s: its error log during the test (warnings, errors, state shifts, views; the last %d):\n%s",
					node, maxNodeLogLines, strings.Join(lines, "\n"))
			}
		}
	})
}

// nodeLogSince returns the last maxNodeLogLines lines of note that the
// error log at path got after offset (from its start when the log is now
// shorter than offset: a log someone emptied or replaced).
func nodeLogSince(path string, offset int64) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Size() < offset {
		offset = 0
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, err
	}
	var out []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); ofNote(line) {
			out = append(out, line)
		}
	}
	out = out[max(0, len(out)-maxNodeLogLines):]
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read %s: %w", path, err)
	}
	return out, nil
}

// ofNote: the lines that say why a node stalled or refused: warnings and
// errors (less the aborted connections every test's cleanup leaves), its
// state shifts (a donor, a joiner), its views and flow control.
func ofNote(line string) bool {
	l := strings.ToLower(line)
	switch {
	case strings.Contains(l, "aborted connection"):
		return false
	case strings.Contains(l, "[warning]"), strings.Contains(l, "[error]"),
		strings.Contains(l, "shifting"), strings.Contains(l, "new cluster view"),
		strings.Contains(l, "bf lock wait"), strings.Contains(l, "flow-control"),
		strings.Contains(l, "flow control"), strings.Contains(l, "gcs_caused"):
		return true
	}
	return false
}

// nodeWatched are the wsrep status variables a failing Galera test prints
// for each node.
var nodeWatched = []string{"wsrep_local_state_comment", "wsrep_cluster_status", "wsrep_cluster_size",
	"wsrep_ready", "wsrep_local_recv_queue", "wsrep_local_recv_queue_max", "wsrep_flow_control_paused",
	"wsrep_flow_control_sent", "wsrep_last_committed"}

// nodeStatus is one line of the node dsn's wsrep status, or why not.
func nodeStatus(dsn string) string {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return fmt.Sprintf("(a DSN of %s: %v)", EnvGaleraDSNs, err)
	}
	cfg.Timeout, cfg.ReadTimeout = 3*time.Second, 5*time.Second
	db, err := sql.Open("mysql", cfg.FormatDSN())
	if err != nil {
		return fmt.Sprintf("%s: %v", cfg.Addr, err)
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	rows, err := db.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('"+strings.Join(nodeWatched, "','")+"')")
	if err != nil {
		return fmt.Sprintf("%s: status: %v", cfg.Addr, err)
	}
	defer rows.Close()
	got := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return fmt.Sprintf("%s: status: %v", cfg.Addr, err)
		}
		got[strings.ToLower(k)] = v
	}
	var b strings.Builder
	b.WriteString(cfg.Addr + " at the test's end:")
	for _, k := range nodeWatched {
		b.WriteString(" " + strings.TrimPrefix(k, "wsrep_") + "=" + got[k])
	}
	return b.String()
}

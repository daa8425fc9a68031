package storetest

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// A Galera test that fails on the cluster's doing (a node that stalls its
// commits or refuses a causal read: 1205 at BEGIN, seen in CI on 8175791
// with no trace of why) tells what the nodes logged meanwhile: each
// node's error log (test/galera.sh's, under GALERA_DIR) is read from
// where it stood when the test took the cluster, and its warnings, errors,
// state shifts and view changes are printed when the test failed. Once
// per top-level test: its subtests' failures fail it too.
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
		for i, l := range logs {
			lines, err := nodeLogSince(l, from[i])
			node := filepath.Base(filepath.Dir(l))
			switch {
			case err != nil:
				tb.Logf("galera %s: its error log: %v", node, err)
			case len(lines) == 0:
				tb.Logf("galera %s: nothing of note in its error log during the test", node)
			default:
				tb.Logf("galera %s: its error log during the test (warnings, errors, state shifts, views; the last %d):\n%s",
					node, maxNodeLogLines, strings.Join(lines, "\n"))
			}
		}
	})
}

// nodeLogSince returns the lines of note that the error log at path got
// after offset (all of it when the log is now shorter: a restarted node
// may have begun it again).
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
	if err := sc.Err(); err != nil {
		return out, fmt.Errorf("read %s: %w", path, err)
	}
	return out[max(0, len(out)-maxNodeLogLines):], nil
}

// ofNote: the lines that say why a node stalled or refused: warnings and
// errors (less the aborted connections every test's cleanup leaves), its
// state shifts (a donor, a joiner), its views and flow control.
func ofNote(line string) bool {
	switch {
	case strings.Contains(line, "Aborted connection"):
		return false
	case strings.Contains(line, "[Warning]"), strings.Contains(line, "[ERROR]"),
		strings.Contains(line, "Shifting"), strings.Contains(line, "New cluster view"),
		strings.Contains(line, "BF lock wait"), strings.Contains(line, "flow control"),
		strings.Contains(line, "gcs_caused"):
		return true
	}
	return false
}

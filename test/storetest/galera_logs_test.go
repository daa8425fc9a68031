package storetest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestNodeLogSinceTellsWhatTheTestSaw: the lines a failing Galera test
// prints are the node's lines of note written after the test took the
// cluster (not before, not aborted connections), all of them when the
// log began again (a restarted node), the last maxNodeLogLines at most.
func TestNodeLogSinceTellsWhatTheTestSaw(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "error.log")
	before := "2026-12-01  3:00:00 0 [Warning] WSREP: before the test\n"
	during := []string{
		"2026-12-01  3:00:01 0 [Note] WSREP: Shifting SYNCED -> DONOR/DESYNCED (TO: 7)",
		"2026-12-01  3:00:01 12 [Warning] Aborted connection 12 to db: 'x' user: 'root' host: 'localhost' (Got an error reading communication packets)",
		"2026-12-01  3:00:02 0 [Note] InnoDB: Buffer pool(s) load completed",
		"2026-12-01  3:00:03 2 [Warning] WSREP: gcs_caused() returned -107 (Transport endpoint is not connected)",
		"2026-12-01  3:00:04 0 [ERROR] WSREP: something failed",
		"2026-12-01  3:00:05 0 [Note] WSREP: Flow-control interval: [16, 16]",
	}
	if err := os.WriteFile(path, []byte(before+strings.Join(during, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := nodeLogSince(path, int64(len(before)))
	if want := []string{during[0], during[3], during[4], during[5]}; err != nil || !reflect.DeepEqual(got, want) {
		t.Fatalf("nodeLogSince = %q, %v; want %q", got, err, want)
	}
	// A node restarted during the test began its log again: all of it.
	got, err = nodeLogSince(path, 1<<20)
	if err != nil || len(got) != 5 || !strings.Contains(got[0], "before the test") {
		t.Fatalf("a log shorter than the offset: %q, %v; want its 5 lines of note from the start", got, err)
	}
	var many strings.Builder
	for range maxNodeLogLines + 10 {
		many.WriteString(during[4] + "\n")
	}
	many.WriteString("2026-12-01  3:00:09 0 [Warning] the last\n")
	if err := os.WriteFile(path, []byte(many.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err = nodeLogSince(path, 0)
	if err != nil || len(got) != maxNodeLogLines || !strings.HasSuffix(got[len(got)-1], "the last") {
		t.Fatalf("%d lines (%q), %v; want the last %d", len(got), got[max(0, len(got)-1):], err, maxNodeLogLines)
	}
}

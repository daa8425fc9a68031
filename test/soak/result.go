package soak

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// maxViolations bounds the violations kept by text; Violations counts all.
const maxViolations = 200

// Result is what a soak counted, and what it found wrong.
type Result struct {
	Concurrency, Replicas int
	ReportTimeout         time.Duration
	Faults                Faults

	LoadStarted, LoadStopped, Drained, Killed, Restarted, Finished time.Time

	Reports  int            // reports of the mix (each a distinct report)
	Modes    map[string]int // how many were sent once, as twins, and again after their 200
	WithFile int
	Keyless  int
	Shared   int // with a credit number shared with other reports

	mu       sync.Mutex
	Answers  map[string]int64 // POSTs by answer: "200", "200 replayed", "503 outcome_unknown", "no answer"…
	Logins   map[string]int64 // the login exchanges beside the load, by answer
	retries  atomic.Int64
	Retries  int64 // POSTs sent again after a 503, a 409 or no answer
	Requests int64 // POSTs in all

	Commits                             int64 // COMMIT statements through the MySQL proxy
	CommitsHeld, CommitsHeldPastTimeout int64
	MaxCommitHeld                       time.Duration
	ObjectPUTs                          int64            // reaching the S3 proxy, faulted or not
	PUTFaults                           map[string]int64 // by kind

	Rows, RowsWithFile int
	Files              int              // objects under the soak's prefix after the final reconcile
	Swept              map[string]int64 // removed by the replicas' own sweeps (their logs), by kind
	FinalReconcile     map[string]int64 // removed by the final reconcile --apply, by kind
	MissingFiles       int              // rows whose file is not there
	Orphans            int              // published objects no row names, after the final reconcile
	Quarantined        int              // objects the sweep moved to quarantine (no row names them)
	DuplicateKeys      int              // idempotency keys with more than one row
	DuplicateReports   int              // reports (identities) with more than one row
	Unacknowledged     int              // reports of the mix that never got their 200

	// Galera: each node's SIGKILL and what partners saw meanwhile, the
	// store's conflicts (1213) run again, and every node's tables.
	NodeKills []NodeKill
	Baseline  map[string]int64 // the same answers before the first kill, for comparison
	Conflicts int64
	Nodes     []NodeTables

	Violations     []string // the first maxViolations
	ViolationCount int
}

func newResult(c *Config) *Result {
	return &Result{Concurrency: c.Concurrency, Replicas: c.Replicas, ReportTimeout: c.ReportTimeout, Faults: c.Faults,
		Answers: map[string]int64{}, Logins: map[string]int64{}, Modes: map[string]int{}}
}

func (r *Result) tally(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Answers[kind]++
	r.Requests++
}

func (r *Result) tallyLogin(kind string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.Logins[kind]++
}

func (r *Result) violation(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.ViolationCount++
	if len(r.Violations) < maxViolations {
		r.Violations = append(r.Violations, fmt.Sprintf(format, args...))
	}
}

// Acknowledged is the POSTs answered 200, first answers and replays.
func (r *Result) Acknowledged() int64 { return r.Answers["200"] + r.Answers["200 replayed"] }

// Print writes the counts, one per line, then the violations.
func (r *Result) Print(w io.Writer) {
	since := func(t time.Time) string {
		if t.IsZero() {
			return "never"
		}
		return fmt.Sprintf("+%s (%s)", t.Sub(r.LoadStarted).Round(100*time.Millisecond), t.UTC().Format("15:04:05"))
	}
	p := func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }
	p("load:               %s at c=%d on %d replicas, report timeout %s, sweep every 1s; drained in %s",
		r.LoadStopped.Sub(r.LoadStarted).Round(time.Second), r.Concurrency, r.Replicas, r.ReportTimeout,
		r.Drained.Sub(r.LoadStopped).Round(100*time.Millisecond))
	p("faults:             COMMITs %d, held %d (%d past the report timeout, longest %s; %.0f %% of COMMITs, 0-%s); object PUTs %d, faulted %s",
		r.Commits, r.CommitsHeld, r.CommitsHeldPastTimeout, r.MaxCommitHeld.Round(100*time.Millisecond), 100*r.Faults.CommitShare,
		r.Faults.CommitMax, r.ObjectPUTs, counts(r.PUTFaults))
	if len(r.NodeKills) == 0 { // a Galera soak kills nodes, not replicas
		p("SIGKILL / restart:  replica 1 killed %s, restarted and ready %s", since(r.Killed), since(r.Restarted))
	}
	p("reports sent:       %d (%d with a file, %d without Idempotency-Key, %d sharing a credit number; %s)",
		r.Reports, r.WithFile, r.Keyless, r.Shared, countsInt(r.Modes))
	p("POSTs:              %d; retries %d", r.Requests, r.Retries)
	answers := maps.Clone(r.Answers)
	for _, k := range []string{"503 outcome_unknown", "503 store_failed", "503 file_store_failed", "503 overloaded", "409 request_in_progress", "no answer"} {
		answers[k] += 0 // shown when none came, too
	}
	p("answers:            %s", counts(answers))
	p("200s:               %d (%d first answers, %d replayed)", r.Acknowledged(), r.Answers["200"], r.Answers["200 replayed"])
	p("logins beside:      %s", counts(r.Logins))
	p("rows:               %d (%d with a file)", r.Rows, r.RowsWithFile)
	p("files:              %d", r.Files)
	p("swept by replicas:  %s (as their logs say; two replicas may both count one file)", counts(r.Swept))
	p("final reconcile:    %s", counts(r.FinalReconcile))
	p("orphans removed by the final reconcile: %d", r.FinalReconcile["orphan_file"])
	p("missing files:      %d", r.MissingFiles)
	p("orphans after:      %d", r.Orphans)
	p("in quarantine:      %d (files of reports never stored; none named by a row)", r.Quarantined)
	p("duplicates:         %d keys, %d reports with more than one row", r.DuplicateKeys, r.DuplicateReports)
	p("unacknowledged:     %d", r.Unacknowledged)
	r.printGalera(p)
	p("violations:         %d", r.ViolationCount)
	for _, v := range r.Violations {
		p("  %s", v)
	}
}

func counts(m map[string]int64) string {
	if len(m) == 0 {
		return "none"
	}
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s: %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func countsInt(m map[string]int) string {
	c := map[string]int64{}
	for k, v := range m {
		c[k] = int64(v)
	}
	return counts(c)
}

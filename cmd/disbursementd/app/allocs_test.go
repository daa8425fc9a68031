package app_test

import (
	"bufio"
	"bytes"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// allocBounds is the file of bounds TestAllocationsPerReport holds: per
// workload, the allocations and the bytes allocated per report that it
// must not pass.
const allocBounds = "testdata/alloc_bounds.txt"

// TestAllocationsPerReport: a report of W1 (the full report, no file) and
// of W2 (with a 200 KB PDF), sent one at a time through the service's
// real handler (router, authentication, body, scan, checks, mapping,
// idempotency, the batch writer and its SQLite commit, the upload store,
// logging and metrics), allocates no more objects and no more bytes per
// report than testdata/alloc_bounds.txt says. Counts, not timings: a
// change that makes a report dearer in garbage fails here whatever the
// machine. The bounds sit 10-15 % above what was measured; when a change
// makes a report cheaper, the test logs the new figures to write there.
// Under the race detector, which instruments allocations, it does not
// assert (test/run runs it without -race in its own stage).
func TestAllocationsPerReport(t *testing.T) {
	bounds := readAllocBounds(t)
	in := testkit.MustStart(t, productionAuth)
	in.AddUser(t, "alloc", "900123456", "alloc-password-1")
	tok := in.Token(t, "alloc", "alloc-password-1")
	h := in.Handler()
	today := time.Now().UTC()
	for _, w := range []struct {
		name    string
		file    []byte
		reports int
	}{
		{"W1", nil, 200},
		{"W2", fixture.PDF(200 << 10), 60},
	} {
		t.Run(w.name, func(t *testing.T) {
			template := fixture.JSON(fixture.FullBody(today, "SENTINEL-CREDIT", w.file))
			// Every body its own credit number: none is a replay.
			reqs := func(prefix string, n int) []*http.Request {
				out := make([]*http.Request, n)
				for i := range out {
					body := bytes.Replace(template, []byte("SENTINEL-CREDIT"), []byte(fmt.Sprintf("%s-%s-%06d", w.name, prefix, i)), 1)
					r := httptest.NewRequest("POST", "/api/partner_api.php", bytes.NewReader(body))
					r.Header.Set("Content-Type", "application/json")
					r.Header.Set("Authentication-Type", "bearer "+tok)
					r.RemoteAddr = "127.0.0.1:40000"
					out[i] = r
				}
				return out
			}
			send := func(rs []*http.Request, recs []*httptest.ResponseRecorder) {
				for i, r := range rs {
					h.ServeHTTP(recs[i], r)
				}
			}
			recorders := func(n int) []*httptest.ResponseRecorder {
				out := make([]*httptest.ResponseRecorder, n)
				for i := range out {
					out[i] = httptest.NewRecorder()
				}
				return out
			}
			// Warm up: prepared statements, pools and caches are made
			// once, not per report.
			warm, warmRecs := reqs("warm", 20), recorders(20)
			send(warm, warmRecs)
			// The counts are the process's: the service's background work
			// (its sweeps, its pools' connections, the dispatcher) that
			// falls inside a round adds to it, and more of it falls inside
			// on a busy machine (CI once counted W2 at 405 allocations a
			// report where a quiet run counts 360). So three rounds, and
			// the least of each count: a report that costs more costs more
			// in every round.
			allocs, bytesPer := uint64(1<<63), uint64(1<<63)
			for round := range 3 {
				rs, recs := reqs(fmt.Sprintf("run%d", round), w.reports), recorders(w.reports)
				runtime.GC()
				var before, after runtime.MemStats
				runtime.ReadMemStats(&before)
				send(rs, recs)
				runtime.ReadMemStats(&after)
				for i, rec := range append(warmRecs, recs...) {
					if rec.Code != 200 {
						t.Fatalf("report %d: %d %s", i, rec.Code, rec.Body.Bytes())
					}
				}
				n := uint64(w.reports)
				allocs = min(allocs, (after.Mallocs-before.Mallocs)/n)
				bytesPer = min(bytesPer, (after.TotalAlloc-before.TotalAlloc)/n)
			}
			b, ok := bounds[w.name]
			if !ok {
				t.Fatalf("%s: no bound in %s", w.name, allocBounds)
			}
			t.Logf("%s: %d allocations and %d bytes a report (bounds %d and %d)", w.name, allocs, bytesPer, b.allocs, b.bytes)
			if raceDetector {
				t.Skip("under the race detector allocations are not the service's: not asserted")
			}
			if allocs > b.allocs {
				t.Errorf("%s: %d allocations a report, bound %d (%s)", w.name, allocs, b.allocs, allocBounds)
			}
			if bytesPer > b.bytes {
				t.Errorf("%s: %d bytes allocated a report, bound %d (%s)", w.name, bytesPer, b.bytes, allocBounds)
			}
			if allocs*100 < b.allocs*80 || bytesPer*100 < b.bytes*80 {
				t.Logf("%s: more than 20 %% under its bounds; lower them in %s to about %d and %d", w.name, allocBounds, allocs*112/100, bytesPer*112/100)
			}
		})
	}
}

type allocBound struct{ allocs, bytes uint64 }

// readAllocBounds reads allocBounds: "WORKLOAD ALLOCS BYTES" a line, "#"
// lines are comments.
func readAllocBounds(t *testing.T) map[string]allocBound {
	t.Helper()
	f, err := os.Open(allocBounds)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string]allocBound{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		fields := strings.Fields(line)
		if len(fields) != 3 {
			t.Fatalf("%s: %q: want WORKLOAD ALLOCS BYTES", allocBounds, line)
		}
		a, errA := strconv.ParseUint(fields[1], 10, 64)
		b, errB := strconv.ParseUint(fields[2], 10, 64)
		if errA != nil || errB != nil {
			t.Fatalf("%s: %q: want two counts", allocBounds, line)
		}
		out[fields[0]] = allocBound{a, b}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

package main

import (
	"fmt"
	"io"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// The measured partner's look-ups: beside its W1 reports, -edge-lookups
// clients of the same partner ask for GET /v1/reports?limit=10, each
// pausing lookupPause between look-ups (a partner's page, not a flood: 4
// clients make about 40 a second, under the default rate of 50). What
// they got is counted by status: a partner that pages while another
// floods should keep getting 200, never 503 (issue 32, finding 5).
const (
	measuredLookupPath = "/v1/reports?limit=10"
	lookupPause        = 100 * time.Millisecond
)

// lookupTally is how the measured look-ups of one run ended.
type lookupTally struct {
	mu        sync.Mutex
	by        map[string]int
	latencies []time.Duration
}

func (l *lookupTally) add(what string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.by == nil {
		l.by = map[string]int{}
	}
	l.by[what]++
	if what == "200" {
		l.latencies = append(l.latencies, d)
	}
}

// row is the table row of the look-ups: how many, how each ended, and the
// latencies of those answered 200.
func (l *lookupTally) row(name string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	n := 0
	var parts []string
	for k, v := range l.by {
		n += v
		if k != "200" {
			parts = append(parts, fmt.Sprintf("%s: %d", k, v))
		}
	}
	sort.Strings(parts)
	other := strings.Join(parts, ", ")
	if other == "" {
		other = "none"
	}
	share := 0.0
	if n > 0 {
		share = float64(n-l.by["200"]) / float64(n)
	}
	p50, _, p99 := latencies(l.latencies)
	return fmt.Sprintf("| %s | %d | %d | %.1f %% | %s | %s | %s |\n", name, n, l.by["200"], 100*share, ms(p50), ms(p99), other)
}

// measuredLookups runs the measured partner's look-up clients until stop
// and returns their tally once they have all ended.
func (e *environment) measuredLookups(conc int, stop <-chan struct{}) func() *lookupTally {
	tally := &lookupTally{}
	if conc <= 0 {
		return func() *lookupTally { return tally }
	}
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conc}, Timeout: 30 * time.Second}
	var wg sync.WaitGroup
	for range conc {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				case <-time.After(lookupPause):
				}
				req, _ := http.NewRequest("GET", e.svcURL+measuredLookupPath, nil)
				req.Header.Set("Authorization", "Bearer "+e.token)
				start := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					tally.add("failed", 0)
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
				tally.add(fmt.Sprint(resp.StatusCode), time.Since(start))
			}
		}()
	}
	return func() *lookupTally { wg.Wait(); return tally }
}

// lookupTable is the look-ups' part of an attack mode's results.
func lookupTable(conc int, alone, during *lookupTally) string {
	if conc <= 0 {
		return ""
	}
	var b strings.Builder
	fmt.Fprintf(&b, "\n| the same partner's look-ups (%d clients, GET %s, %s apart) | look-ups | answered 200 | not 200 | p50 ms | p99 ms | not 200, by status |\n|---|---|---|---|---|---|---|\n",
		conc, measuredLookupPath, lookupPause)
	b.WriteString(alone.row("alone"))
	b.WriteString(during.row("beside the attack"))
	return b.String()
}

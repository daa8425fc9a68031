package process

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
)

// TestMemoryHoldsUnderTextThatGrows: issue 32, finding 6. Six partners at
// once validate, twice each, a 31.9 MiB body whose Observaciones is
// U+1D160 throughout (4 bytes, 12 in NFC), against the real binary with
// the shipped container's memory limit and GOMEMLIMIT, in a memory
// cgroup of that limit when the machine allows one. Every answer is 422
// naming Observaciones too_long (or 503 overloaded; or, from a client
// the machine kept behind, 408 body_too_slow or no answer, held to the
// service's count of its refusals by checkServerAnswers), the kernel kills
// nothing, and the Go heap stays within what the bodies reserved: the
// text is refused by its field's maximum before it is put in NFC. Before,
// NFC took about fourteen times the text and six such bodies took the
// process to 963 MiB RSS.
func TestMemoryHoldsUnderTextThatGrows(t *testing.T) { // not parallel: see loadTests
	if testing.Short() {
		t.Skip("a memory test of six 32 MiB bodies at once")
	}
	// Six partners: one partner's share of the bytes in flight holds one
	// such body at a time, and the bodies are to be read at once.
	r := startMemRun(t, 6)
	p, toks := r.p, r.toks

	report := fixture.DecimalsAsStrings(fixture.Minimal(time.Now(), "CR-NFC-MEM"))
	report["Observaciones"] = strings.Repeat("\U0001D160", 319<<20/10/4)
	body, err := json.Marshal(report)
	if err != nil {
		t.Fatal(err)
	}
	heapBefore, _ := memMetrics(p.URL)
	stop := r.sample()
	client := &http.Client{Timeout: 2 * time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 6}}
	var mu sync.Mutex
	counts := map[string]int{}
	errs := newFirstErr()
	var wg sync.WaitGroup
	for i := range 6 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 2 {
				outcome := validateGrowing(client, p.URL, toks[i], body, errs)
				mu.Lock()
				counts[outcome]++
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	peaks := stop()
	hwm, cgPeak := r.checkLimit(t)
	t.Logf("%d-byte bodies: %v; peak RSS %.0f MiB, cgroup peak %.0f MiB, Go heap in use %.0f MiB before and %.0f MiB at most",
		len(body), counts, mib(hwm), mib(cgPeak), mib(heapBefore), mib(peaks.heap.Load()))
	if budget := int64(config.Defaults().HTTP.MaxBytesInFlight); peaks.heap.Load() > heapBefore+budget {
		t.Errorf("Go heap in use reached %d, more than %d before and http.max_bytes_in_flight (%d)", peaks.heap.Load(), heapBefore, budget)
	}
	if counts[noAnswer] > 0 {
		t.Logf("%d requests without an answer; the first error: %s", counts[noAnswer], errs)
	}
	if counts["422 too_long"] == 0 || counts["422 too_long"]+counts["503 overloaded"]+counts["408 body_too_slow"]+counts[noAnswer] != 12 {
		t.Errorf("answers %v: want 422 too_long naming Observaciones (or 503 overloaded) only", counts)
	}
	checkServerAnswers(t, p.URL, "/v1/reports/validate", 12, counts, "422 too_long", 422,
		map[string]int{"503 overloaded": 503, "408 body_too_slow": 408})
}

// validateGrowing posts body to /v1/reports/validate and returns "422
// too_long" (one problem, Observaciones too_long), "503 overloaded",
// "408 body_too_slow", noAnswer (the error kept in errs) or what else
// came back.
func validateGrowing(client *http.Client, url, tok string, body []byte, errs *firstErr) string {
	req, _ := http.NewRequest("POST", url+"/v1/reports/validate", bytes.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+tok)
	req.Header.Set("Content-Type", "application/json")
	resp, err := client.Do(req)
	return outcomeOf(resp, err, errs, func(resp *http.Response, raw []byte) string {
		var problem struct {
			Code   string
			Errors []struct{ Field, Code string }
		}
		_ = json.Unmarshal(raw, &problem)
		switch {
		case resp.StatusCode == 422 && len(problem.Errors) == 1 && problem.Errors[0].Field == "Observaciones" && problem.Errors[0].Code == "too_long":
			return "422 too_long"
		case resp.StatusCode == 503 && problem.Code == "overloaded":
			return "503 overloaded"
		case resp.StatusCode == 408 && problem.Code == "body_too_slow":
			return "408 body_too_slow"
		}
		return fmt.Sprintf("%d %.200s", resp.StatusCode, raw)
	})
}

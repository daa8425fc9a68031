package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"sort"
	"strconv"
	"strings"

	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/lender/disbursementd/test/fixture"
)

// workload is one kind of report body.
type workload struct {
	name      string
	fileBytes int
	conc      []int
	duration  time.Duration
	file      []byte
	prefix    []byte // body up to the credit number
	suffix    []byte // body after it
}

func workloads(o options) []workload {
	ws := []workload{
		{name: "W1", conc: o.concurrency, duration: o.duration},
		{name: "W2", fileBytes: 200 << 10, conc: o.concurrency, duration: o.duration},
		{name: "W3", fileBytes: 20<<20 - 4096, conc: o.w3Concurrency, duration: 3 * o.duration},
	}
	for i := range ws {
		w := &ws[i]
		if w.fileBytes > 0 {
			w.file = fixture.PDF(w.fileBytes)
		}
		body, _ := json.Marshal(fixture.FullBody(time.Now(), "SENTINEL-CREDIT", w.file))
		at := bytes.Index(body, []byte("SENTINEL-CREDIT"))
		w.prefix, w.suffix = body[:at], body[at+len("SENTINEL-CREDIT"):]
	}
	return ws
}

var seq atomic.Int64

// body returns a body with a fresh credit number, so that no two requests
// are identical (identical bodies are answered from the idempotency record).
func (w workload) body(run int64) []byte {
	credit := fmt.Sprintf("L%d-%d", run%1_000_000, seq.Add(1))
	b := make([]byte, 0, len(w.prefix)+len(credit)+len(w.suffix))
	return append(append(append(b, w.prefix...), credit...), w.suffix...)
}

// result is one measured run.
type result struct {
	Requests   uint64
	Throughput float64 // successful requests per second
	P50        time.Duration
	P90        time.Duration
	P99        time.Duration
	Errors     uint64
	PeakRSS    int64 // bytes, service only
	BaseRSS    int64
	BodyBytes  int
}

func (e *environment) attack(url string, w workload, c int, withToken bool) (result, error) {
	return e.attackAt(url, w, c, 0, withToken)
}

// attackAt drives w with up to c requests in flight: as fast as they
// complete (rate 0), or at a fixed rate per second.
func (e *environment) attackAt(url string, w workload, c int, rate int, withToken bool) (result, error) {
	hdr := http.Header{"Content-Type": []string{"application/json"}}
	if withToken {
		hdr.Set("Authentication-Type", "bearer "+e.token)
	}
	targeter := func(t *vegeta.Target) error {
		t.Method, t.URL, t.Header, t.Body = "POST", url, hdr, w.body(e.run)
		return nil
	}
	attacker := vegeta.NewAttacker(vegeta.Workers(uint64(c)), vegeta.MaxWorkers(uint64(c)),
		vegeta.Connections(c), vegeta.KeepAlive(true), vegeta.Timeout(2*time.Minute), vegeta.MaxBody(1<<16))
	var m vegeta.Metrics
	for res := range attacker.Attack(targeter, vegeta.Rate{Freq: rate, Per: time.Second}, w.duration, w.name) {
		m.Add(res)
	}
	m.Close()
	var errs uint64
	for code, n := range m.StatusCodes {
		if code != "200" {
			errs += uint64(n)
		}
	}
	return result{Requests: m.Requests, Throughput: m.Throughput, P50: m.Latencies.P50, P90: m.Latencies.P90,
		P99: m.Latencies.P99, Errors: errs, BodyBytes: len(w.prefix) + len(w.suffix) + 12}, nil
}

func (e *environment) attackService(w workload, c int) (result, error) {
	pid := e.svc.Process.Pid
	base := procStatus(pid, "VmRSS")
	resetPeak(pid)
	r, err := e.attack(e.svcURL+"/api/partner_api.php", w, c, true)
	r.PeakRSS, r.BaseRSS = procStatus(pid, "VmHWM"), base
	return r, err
}

// halfLoad runs w at half the throughput measured at c=32, with up to 128
// requests in flight: the latency a partner sees on a busy, not saturated,
// day.
func (e *environment) halfLoad(w workload, max float64) (result, error) {
	return e.attackAt(e.svcURL+"/api/partner_api.php", w, 128, int(max/2), true)
}

func (e *environment) attackSink(w workload, c int) (result, error) {
	return e.attack(e.sinkURL, w, c, false)
}

// procStatus reads a kB field of /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, field+":") {
			f := strings.Fields(line)
			n, _ := strconv.ParseInt(f[1], 10, 64)
			return n << 10
		}
	}
	return 0
}

// resetPeak resets the process's peak RSS (VmHWM), Linux ≥ 4.0.
func resetPeak(pid int) { _ = os.WriteFile(fmt.Sprintf("/proc/%d/clear_refs", pid), []byte("5"), 0) }

// memory is the W3 memory check: peak RSS over sequential requests.
type memory struct {
	BodyBytes int
	BaseRSS   int64
	PeakAfter map[int]int64
	Errors    int
}

func (e *environment) w3Memory(n int) (memory, error) {
	var w3 workload
	for _, w := range workloads(e.o) {
		if w.name == "W3" {
			w3 = w
		}
	}
	pid := e.svc.Process.Pid
	// Warm up with one W1 report, so the baseline includes the code paths.
	if _, err := e.attackAt(e.svcURL+"/api/partner_api.php", workloads(e.o)[0], 1, 0, true); err != nil {
		return memory{}, err
	}
	m := memory{BodyBytes: len(w3.prefix) + len(w3.suffix) + 12, BaseRSS: procStatus(pid, "VmRSS"), PeakAfter: map[int]int64{}}
	resetPeak(pid)
	client := &http.Client{Timeout: 2 * time.Minute}
	for i := 1; i <= n; i++ {
		req, _ := http.NewRequest("POST", e.svcURL+"/api/partner_api.php", bytes.NewReader(w3.body(e.run)))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authentication-Type", "bearer "+e.token)
		resp, err := client.Do(req)
		if err != nil || resp.StatusCode != 200 {
			m.Errors++
		}
		if resp != nil {
			resp.Body.Close()
		}
		if i == 1 || i == 5 || i == 10 || i == 25 || i == n {
			m.PeakAfter[i] = procStatus(pid, "VmHWM")
		}
	}
	return m, nil
}

// latencies summarises durations measured outside vegeta.
func latencies(d []time.Duration) (p50, p90, p99 time.Duration) {
	if len(d) == 0 {
		return
	}
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	at := func(q float64) time.Duration { return d[min(len(d)-1, int(q*float64(len(d))))] }
	return at(0.50), at(0.90), at(0.99)
}

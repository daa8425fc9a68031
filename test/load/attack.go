package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"sync/atomic"
	"time"

	vegeta "github.com/tsenart/vegeta/v12/lib"

	"github.com/lender/disbursementd/adapters/httpapi"
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
	// v1: sent to POST /v1/reports with Authorization: Bearer, money and
	// rates as strings, and answered 201; otherwise the legacy POST.
	v1 bool
}

// path is where the service takes w.
func (w workload) path() string {
	if w.v1 {
		return "/v1/reports"
	}
	return httpapi.PartnerPath
}

func workloads(o options) []workload {
	ws := []workload{
		{name: "W1", conc: o.concurrency, duration: o.duration},
		{name: "W2", fileBytes: 200 << 10, conc: o.concurrency, duration: o.duration},
		{name: "W3", fileBytes: 20<<20 - 4096, conc: o.w3Concurrency, duration: 3 * o.duration},
		// W1 and W2 through /v1, for the comparison of issue 16.
		{name: "V1", conc: o.concurrency, duration: o.duration, v1: true},
		{name: "V2", fileBytes: 200 << 10, conc: o.concurrency, duration: o.duration, v1: true},
	}
	for i := range ws {
		w := &ws[i]
		if w.fileBytes > 0 {
			w.file = fixture.PDF(w.fileBytes)
		}
		report := fixture.FullBody(time.Now(), "SENTINEL-CREDIT", w.file)
		if w.v1 {
			report = fixture.DecimalsAsStrings(report)
		}
		body, _ := json.Marshal(report)
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
	OK         uint64  // answered 200
	Throughput float64 // successful requests per second
	P50        time.Duration
	P90        time.Duration
	P99        time.Duration
	Errors     uint64
	Answers    map[string]uint64 // the errors by answer: an HTTP status, or "0" for none (a transport error)
	PeakRSS    int64             // bytes, service only
	BaseRSS    int64
	BodyBytes  int
	CPU        time.Duration // the service process's CPU time over the run
	DBCPU      time.Duration // the database server's, when its PID is known
}

func (e *environment) attack(url string, w workload, c int, withToken bool) (result, error) {
	return e.attackAt([]string{url}, w, c, 0, withToken)
}

// attackAt drives w with up to c requests in flight, spread round robin
// over urls: as fast as they complete (rate 0), or at a fixed rate per
// second.
func (e *environment) attackAt(urls []string, w workload, c int, rate int, withToken bool) (result, error) {
	var next atomic.Uint64
	hdr := http.Header{"Content-Type": []string{"application/json"}}
	ok := "200"
	switch {
	case withToken && w.v1:
		hdr.Set("Authorization", "Bearer "+e.token)
		ok = "201"
	case withToken:
		hdr.Set("Authentication-Type", "bearer "+e.token)
	}
	targeter := func(t *vegeta.Target) error {
		t.Method, t.URL, t.Header, t.Body = "POST", urls[next.Add(1)%uint64(len(urls))], hdr, w.body(e.run)
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
	answers := map[string]uint64{}
	for code, n := range m.StatusCodes {
		if code != ok {
			errs += uint64(n)
			answers[code] += uint64(n)
		}
	}
	return result{Requests: m.Requests, OK: uint64(m.StatusCodes[ok]), Throughput: m.Throughput,
		P50: m.Latencies.P50, P90: m.Latencies.P90, P99: m.Latencies.P99, Errors: errs, Answers: answers,
		BodyBytes: len(w.prefix) + len(w.suffix) + 12}, nil
}

// attackService drives the service (rate 0: closed loop), over every
// replica, and measures the first replica's peak RSS and the CPU time all
// replicas and the database server used, read just before and just after
// the run.
func (e *environment) attackService(w workload, c, rate int) (result, error) {
	pid := e.svc.Process.Pid
	base := procStatus(pid, "VmRSS")
	resetPeak(pid)
	before := e.cpu.sample()
	urls := make([]string, len(e.svcURLs))
	for i, u := range e.svcURLs {
		urls[i] = u + w.path()
	}
	r, err := e.attackAt(urls, w, c, rate, true)
	r.CPU, r.DBCPU = e.cpu.since(before)
	r.PeakRSS, r.BaseRSS = procStatus(pid, "VmHWM"), base
	return r, err
}

// halfLoad runs w at half the throughput measured at c=32, with up to 128
// requests in flight: the latency a partner sees on a busy, not saturated,
// day.
func (e *environment) halfLoad(w workload, max float64) (result, error) {
	return e.attackService(w, 128, int(max/2))
}

func (e *environment) attackSink(w workload, c int) (result, error) {
	return e.attack(e.sinkURL, w, c, false)
}

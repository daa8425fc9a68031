package main

import (
	"bytes"
	"net/http"
	"time"

	"github.com/lender/disbursementd/adapters/httpapi"
)

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
	if _, err := e.attackAt([]string{e.svcURL + httpapi.PartnerPath}, workloads(e.o)[0], 1, 0, true); err != nil {
		return memory{}, err
	}
	m := memory{BodyBytes: len(w3.prefix) + len(w3.suffix) + 12, BaseRSS: procStatus(pid, "VmRSS"), PeakAfter: map[int]int64{}}
	resetPeak(pid)
	client := &http.Client{Timeout: 2 * time.Minute}
	for i := 1; i <= n; i++ {
		req, _ := http.NewRequest("POST", e.svcURL+httpapi.PartnerPath, bytes.NewReader(w3.body(e.run)))
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

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/lender/disbursementd/test/storetest"
)

// The webhook hang (issue 33: "a slow, failing or hanging receiver must
// never slow reports or look-ups"): the measured partner's reports (W1,
// or -edge-w, closed loop at -edge-c) alone, then beside hangEndpoints
// webhook endpoints of the same partner, subscribed to report.received,
// each aimed at a loopback listener of its own that accepts connections,
// reads what comes and never answers: every report stored makes five
// deliveries, each attempt held until webhooks.timeout. Each side is
// measured -runs times; the table shows medians. The service runs with
// webhooks.allow_insecure_hosts = 127.0.0.1 (a loopback receiver is
// otherwise refused at connect time).
const (
	modeWebhookHang = "webhook-hang"
	hangEndpoints   = 5
)

// modeSettings are the service settings a mode needs, before -env's (which
// override them).
func modeSettings(mode string) []string {
	if mode == modeWebhookHang {
		return []string{"DISB_WEBHOOKS_ALLOW_INSECURE_HOSTS=127.0.0.1"}
	}
	return nil
}

// runWebhookHang measures the reports alone and beside the hanging
// receivers, and writes the results.
func runWebhookHang(o options) error {
	env, err := newEnvironment(o)
	if err != nil {
		return err
	}
	defer env.close()
	w, err := edgeWorkload(o)
	if err != nil {
		return err
	}
	measure := func(side string) ([]result, error) {
		var rs []result
		for i := 1; i <= o.runs; i++ {
			log.Printf("%s: %s reports at c=%d %s%s", o.mode, w.name, o.edgeConc, side, runOf(i, o.runs))
			r, err := env.attackService(w, o.edgeConc, 0)
			if err != nil {
				return nil, err
			}
			rs = append(rs, r)
		}
		return rs, nil
	}
	alone, err := measure("alone")
	if err != nil {
		return err
	}
	hang, err := listenHanging(hangEndpoints)
	if err != nil {
		return err
	}
	defer hang.close()
	if err := env.hangingEndpoints(hang); err != nil {
		return err
	}
	time.Sleep(2 * time.Second)
	beside, err := measure(fmt.Sprintf("beside %d hanging endpoints", hangEndpoints))
	if err != nil {
		return err
	}
	if o.profileDir != "" {
		// Where the service's time goes beside the hanging receivers.
		p, err := env.profile(w, o.edgeConc)
		if err != nil {
			return err
		}
		log.Printf("%s: profiles in %v", o.mode, p.files)
	}
	pending := env.pendingDeliveries()
	text := hangTable(o, w.name, alone, beside) + fmt.Sprintf("\nThe hanging listeners accepted %d connections; %s.\n", hang.accepted(), pending)
	fmt.Print(text)
	return writeAttackResults(o, env, text)
}

// hangTable is the alone and beside rows, medians over the runs.
func hangTable(o options, workload string, alone, beside []result) string {
	var b strings.Builder
	fmt.Fprintf(&b, "| %s c=%d, median of %d | reports/s | p50 ms | p99 ms | errors (all runs) |\n|---|---|---|---|---|\n", workload, o.edgeConc, o.runs)
	for _, r := range []struct {
		name string
		rs   []result
	}{{"no endpoint", alone}, {fmt.Sprintf("%d hanging endpoints", hangEndpoints), beside}} {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.name, num(medianOf(r.rs, throughput)), ms(medianDur(r.rs, p50)), ms(medianDur(r.rs, p99)), errorsOf(r.rs))
	}
	if a := medianOf(alone, throughput); a > 0 {
		fmt.Fprintf(&b, "\nThroughput kept beside the hanging endpoints: %.2f of alone.\n", medianOf(beside, throughput)/a)
	}
	return b.String()
}

// hanging is loopback listeners that accept connections, read them and
// never answer, until closed.
type hanging struct {
	lns   []net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func listenHanging(n int) (*hanging, error) {
	h := &hanging{}
	for range n {
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			h.close()
			return nil, err
		}
		h.lns = append(h.lns, ln)
		go func() {
			for {
				c, err := ln.Accept()
				if err != nil {
					return
				}
				h.mu.Lock()
				h.conns = append(h.conns, c)
				h.mu.Unlock()
				go func() { _, _ = io.Copy(io.Discard, c) }()
			}
		}()
	}
	return h, nil
}

func (h *hanging) accepted() int {
	h.mu.Lock()
	defer h.mu.Unlock()
	return len(h.conns)
}

func (h *hanging) close() {
	for _, ln := range h.lns {
		_ = ln.Close()
	}
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, c := range h.conns {
		_ = c.Close()
	}
}

// hangingEndpoints registers one endpoint of the measured partner per
// hanging listener, for report.received.
func (e *environment) hangingEndpoints(h *hanging) error {
	for i, ln := range h.lns {
		body, _ := json.Marshal(map[string]any{"url": fmt.Sprintf("http://%s/hook/%d", ln.Addr(), i),
			"event_types": []string{"report.received"}, "description": "load: a receiver that never answers"})
		req, _ := http.NewRequest(http.MethodPost, e.svcURL+"/v1/webhook_endpoints", bytes.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Authorization", "Bearer "+e.token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			return fmt.Errorf("POST /v1/webhook_endpoints: %w", err)
		}
		raw, _ := io.ReadAll(io.LimitReader(resp.Body, 4096))
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			return fmt.Errorf("POST /v1/webhook_endpoints: %d %s", resp.StatusCode, raw)
		}
	}
	return nil
}

// pendingDeliveries says how many deliveries wait, read from the
// service's database (SQLite's file or MariaDB's database).
func (e *environment) pendingDeliveries() string {
	db, err := storetest.OpenSQL(e.driver, e.svcDSN)
	if err != nil {
		return "the deliveries waiting were not counted: " + err.Error()
	}
	defer db.Close()
	var n int
	if err := db.QueryRow("SELECT COUNT(*) FROM webhook_deliveries WHERE state = 'pending'").Scan(&n); err != nil {
		return "the deliveries waiting were not counted: " + err.Error()
	}
	return fmt.Sprintf("%d deliveries were waiting at the end", n)
}

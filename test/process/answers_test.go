package process

import (
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// noAnswer is the outcome of a request that got no answer the client
// could read: its connection failed (a broken pipe or a reset while the
// body was still being sent, or right after). When the server turns a
// body away (503 overloaded, 408 body_too_slow) it closes the connection
// with part of the body unread; on a busy machine the client's write can
// fail before it reads the answer, and its kernel then drops the answer.
// Such a request is an answer the test counts apart, and
// checkServerAnswers holds each one to a refusal the server recorded.
const noAnswer = "no answer (the connection failed)"

// outcomeOf is the outcome of client.Do: noAnswer on a transport error
// (the error itself is logged once by the caller through errs), else
// what classify makes of the answer.
func outcomeOf(resp *http.Response, err error, errs *firstErr, classify func(*http.Response, []byte) string) string {
	if err != nil {
		errs.keep(err)
		return noAnswer
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return classify(resp, raw)
}

// firstErr keeps the first transport error of a run, for its log.
type firstErr struct{ ch chan error }

func newFirstErr() *firstErr { return &firstErr{ch: make(chan error, 1)} }

func (f *firstErr) keep(err error) {
	select {
	case f.ch <- err:
	default:
	}
}

func (f *firstErr) String() string {
	select {
	case err := <-f.ch:
		f.ch <- err
		return err.Error()
	default:
		return "none"
	}
}

// checkServerAnswers holds what the clients saw of n requests to route
// (client: outcomes, with okOutcome the answers the service is asked
// for, refusals the refusals read in full, each by its status) to what
// the service says it answered (disbursementd_http_requests_total): it
// answered every request, only with okStatus or a refusal status; every
// okStatus answer was read; and the requests without an answer
// (noAnswer) are exactly the refusals the clients did not read. So a
// connection that failed stands for a refusal, never for a lost answer,
// a crash or a request the service never saw. The metric is written
// after the handler returns, so it is read until it counts n (at most a
// minute: a wait, not a speed).
func checkServerAnswers(t *testing.T, url, route string, n int, client map[string]int, okOutcome string, okStatus int, refusals map[string]int) map[int]int {
	t.Helper()
	var server map[int]int
	total := 0
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		server, total = routeAnswers(t, url, route), 0
		for _, c := range server {
			total += c
		}
		if total >= n || time.Now().After(deadline) {
			break
		}
	}
	if total != n {
		t.Errorf("the service counts %d answers on %s (%v), want %d", total, route, server, n)
	}
	refusedServer, refusedRead := 0, 0
	for status, c := range server {
		switch {
		case status == okStatus:
		case containsValue(refusals, status):
			refusedServer += c
		default:
			t.Errorf("the service answered %d × %d on %s; want only %d and the refusals %v", c, status, route, okStatus, refusals)
		}
	}
	for outcome := range refusals {
		refusedRead += client[outcome]
	}
	if client[okOutcome] != server[okStatus] {
		t.Errorf("the clients read %d × %q, the service sent %d × %d: an answer was lost", client[okOutcome], okOutcome, server[okStatus], okStatus)
	}
	if client[noAnswer] != refusedServer-refusedRead {
		t.Errorf("%d requests without an answer, but the service refused %d and %d refusals were read: a connection failed that was no refusal",
			client[noAnswer], refusedServer, refusedRead)
	}
	return server
}

func containsValue(m map[string]int, v int) bool {
	for _, x := range m {
		if x == v {
			return true
		}
	}
	return false
}

// routeAnswers reads disbursementd_http_requests_total of route's POSTs
// by status from /metrics.
func routeAnswers(t *testing.T, url, route string) map[int]int {
	t.Helper()
	c := &http.Client{Timeout: 30 * time.Second}
	resp, err := c.Get(url + "/metrics")
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	line := regexp.MustCompile(`(?m)^disbursementd_http_requests_total\{([^}]*)\} (\S+)$`)
	status := regexp.MustCompile(`status="(\d+)"`)
	want := fmt.Sprintf(`route=%q`, route)
	out := map[int]int{}
	for _, m := range line.FindAllSubmatch(raw, -1) {
		labels := string(m[1])
		if !strings.Contains(labels, want) || !strings.Contains(labels, `method="POST"`) {
			continue
		}
		s := status.FindStringSubmatch(labels)
		f, _ := strconv.ParseFloat(string(m[2]), 64)
		if s != nil {
			code, _ := strconv.Atoi(s[1])
			out[code] += int(f)
		}
	}
	return out
}

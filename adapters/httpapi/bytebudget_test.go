package httpapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// TestByteBudgetBoundsBytesAndPartners: holds never pass the
// budget in all, nor one partner's share (here half); a refused cover
// changes nothing; a release gives back all a hold held.
func TestByteBudgetBoundsBytesAndPartners(t *testing.T) {
	b := newByteBudget(100, 50, func(int64) {})
	a1, a2, c1 := b.hold("a"), b.hold("a"), b.hold("c")
	if !a1.cover(20) || a1.held != 20*heldPerBodyByte {
		t.Fatalf("a's first 20 bytes: held %d", a1.held)
	}
	if a2.cover(6) {
		t.Fatal("a covered more than half the budget")
	}
	if a2.held != 0 || b.used != 40 {
		t.Fatalf("a refused cover changed the budget: held %d, used %d", a2.held, b.used)
	}
	if !a1.cover(25) || !c1.cover(25) || b.used != 100 {
		t.Fatalf("growing to 25 each: used %d", b.used)
	}
	if c2 := b.hold("d"); c2.cover(1) {
		t.Fatal("covered past the budget")
	}
	a1.release()
	a1.release()
	if b.used != 50 || len(b.by) != 1 {
		t.Fatalf("after a's release: used %d, partners %v", b.used, b.by)
	}
	c1.release()
	if b.used != 0 || len(b.by) != 0 {
		t.Fatalf("after every release: used %d, partners %v", b.used, b.by)
	}
}

// TestPartnerShare: one partner holds a quarter of the budget, or one
// largest body's hold when that is more: at the shipped 384 MiB
// and 32 MiB bodies, 96 MiB, so no fewer than four partners fill it.
func TestPartnerShare(t *testing.T) {
	for _, c := range []struct{ total, body, want int64 }{
		{384 * mib, 32 * mib, 96 * mib},
		{128 * mib, 32 * mib, 64 * mib},
		{1 << 30, 1 * mib, 256 * mib},
	} {
		if got := partnerShare(c.total, c.body); got != c.want {
			t.Errorf("partnerShare(%d MiB, %d MiB) = %d MiB, want %d", c.total>>20, c.body>>20, got>>20, c.want>>20)
		}
	}
}

// TestBytesInFlightAreBounded: a report whose body would pass the bytes
// in flight is turned away at once with 503 overloaded, Retry-After and
// the connection closed, on the legacy path and on /v1 (reports and
// validate), whether its length is declared or not; a small body still
// fits beside the held one, and the held bytes come back when the report
// is answered.
func TestBytesInFlightAreBounded(t *testing.T) {
	h, _ := newV1Harness(t, Limits{MaxBody: 1 << 20, MaxBytesInFlight: 4 << 20})
	h.reports.hold, h.reports.started = make(chan struct{}), make(chan struct{}, 1)
	big := `{"x":"` + strings.Repeat("a", 600<<10) + `"}`
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if a := h.do(t, "POST", PartnerPath, reportHeaders, big); a.status != 200 {
			t.Errorf("held report: %d %s", a.status, a.raw)
		}
	}()
	<-h.reports.started
	if got := metricValue(t, h.srv, "disbursementd_report_bytes_reserved"); got != float64(len(big)*heldPerBodyByte) {
		t.Errorf("bytes reserved while the report is held: %v, want %d", got, len(big)*heldPerBodyByte)
	}
	for _, c := range []struct {
		path    string
		headers map[string]string
		chunked bool
	}{
		{PartnerPath, reportHeaders, false},
		{"/v1/reports", v1Headers, false},
		{"/v1/reports/validate", v1Headers, false},
		{"/v1/reports/validate", v1Headers, true},
	} {
		status, code, resp := post(t, h.url+c.path, c.headers, big, c.chunked)
		if status != 503 || code != "overloaded" || resp.Header.Get("Retry-After") == "" || !resp.Close {
			t.Errorf("%s (chunked %v) beside the held report: %d %s, Retry-After %q, closed %v",
				c.path, c.chunked, status, code, resp.Header.Get("Retry-After"), resp.Close)
		}
	}
	for _, chunked := range []bool{false, true} {
		if status, code, _ := post(t, h.url+"/v1/reports/validate", v1Headers, `{}`, chunked); status != 200 {
			t.Errorf("a small validate (chunked %v) beside the held report: %d %s", chunked, status, code)
		}
	}
	close(h.reports.hold)
	wg.Wait()
	if status, code, _ := post(t, h.url+"/v1/reports/validate", v1Headers, big, true); status != 200 {
		t.Errorf("once the held report was answered: %d %s", status, code)
	}
	if got := metricValue(t, h.srv, "disbursementd_report_bytes_reserved"); got != 0 {
		t.Errorf("bytes reserved after every report was answered: %v", got)
	}
	if n := metricValue(t, h.srv, "disbursementd_reports_overloaded_total"); n != 4 {
		t.Errorf("reports_overloaded_total = %v, want 4", n)
	}
}

// post sends body, with its length or chunked, and returns the status and
// the answer's code (legacy "code" or the problem's).
func post(t *testing.T, url string, headers map[string]string, body string, chunked bool) (int, string, *http.Response) {
	t.Helper()
	var r interface{ Read([]byte) (int, error) } = strings.NewReader(body)
	if chunked {
		r = struct{ *bytes.Buffer }{bytes.NewBufferString(body)} // hides the length
	}
	req, _ := http.NewRequest("POST", url, r)
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("POST %s: %v", url, err)
	}
	defer resp.Body.Close()
	var out struct{ Code string }
	_ = json.NewDecoder(resp.Body).Decode(&out)
	return resp.StatusCode, out.Code, resp
}

package httpapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/metrics"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// fakeReports answers Submit with what the test set, and can hold a
// submission until released.
type fakeReports struct {
	mu      sync.Mutex
	got     []ports.Submission
	receipt domain.Receipt
	err     error
	hold    chan struct{}
	started chan struct{}
	// untilCancelled: Submit runs until its context ends, then fails.
	untilCancelled bool
}

func (f *fakeReports) Submit(ctx context.Context, sub ports.Submission) (domain.Receipt, error) {
	f.mu.Lock()
	f.got = append(f.got, sub)
	hold, started, untilCancelled := f.hold, f.started, f.untilCancelled
	f.mu.Unlock()
	if started != nil {
		started <- struct{}{}
	}
	if hold != nil {
		<-hold
	}
	if untilCancelled {
		<-ctx.Done()
		return domain.Receipt{}, domain.NewError(domain.ErrUnavailable, "store_failed", domain.MsgStoreFailed).WithCause(ctx.Err())
	}
	return f.receipt, f.err
}

// fakeTokens is both the exchanger and the authenticator: "good" (acme's)
// and "good-beta" (beta's) are the valid tokens, and those of
// otherPrincipals.
type fakeTokens struct {
	issued ports.Issued
	err    error
}

func (f *fakeTokens) Token(context.Context, ports.LoginAttempt) (ports.Issued, error) {
	return f.issued, f.err
}

func (f *fakeTokens) Authenticate(_ context.Context, tok string) (ports.Principal, error) {
	if tok == "good-beta" {
		return ports.Principal{User: "beta", NIT: "900123457"}, nil
	}
	if p, ok := otherPrincipals[tok]; ok {
		return p, nil
	}
	if tok != "good" {
		e := domain.NewError(domain.ErrInvalidToken, "invalid_token", domain.MsgInvalidToken)
		e.Detail = "signature"
		return ports.Principal{}, e
	}
	return ports.Principal{User: "acme", NIT: "900123456"}, nil
}

// otherPrincipals are more tokens: a second and a third user name of
// acme's partner (its NIT written as a user may write it), and two more
// partners.
var otherPrincipals = map[string]ports.Principal{
	"good-acme2": {User: "acme2", NIT: "900.123.456-8"},
	"good-acme3": {User: "acme3", NIT: "900123456-8"},
	"good-gamma": {User: "gamma", NIT: "900123458"},
	"good-delta": {User: "delta", NIT: "900123459"},
}

type harness struct {
	srv     *Server
	url     string
	reports *fakeReports
	tokens  *fakeTokens
	logs    *bytes.Buffer
	logMu   *sync.Mutex
}

func newHarness(t *testing.T, limits Limits) *harness {
	t.Helper()
	h := &harness{reports: &fakeReports{receipt: domain.Receipt{StoredReceipt: domain.StoredReceipt{ID: 7, FileName: "partner_CR-1_20261126T100000000Z.pdf"}}},
		tokens: &fakeTokens{}, logs: &bytes.Buffer{}, logMu: &sync.Mutex{}}
	log := slog.New(slog.NewJSONHandler(lockedWriter{h.logs, h.logMu}, nil))
	srv, err := New(Server{Reports: h.reports, Exchange: h.tokens, Login: h.tokens, Auth: h.tokens,
		JWKS: func() ([]byte, error) { return []byte(`{"keys":[]}`), nil }, OpenAPI: []byte("openapi: 3.1.0\n"),
		Log: log, Clock: sysclock.Clock{}, Limits: testLimits(limits)}, metrics.New())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	h.srv, h.url = srv, ts.URL
	return h
}

// rebuild serves h from a new Server made by New from a copy of h's,
// changed by change, on a listener of its own.
func (h *harness) rebuild(t *testing.T, change func(*Server)) {
	t.Helper()
	s := *h.srv
	change(&s)
	srv, err := New(s, metrics.New())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	t.Cleanup(ts.Close)
	h.srv, h.url = srv, ts.URL
}

type lockedWriter struct {
	b  *bytes.Buffer
	mu *sync.Mutex
}

func (w lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (h *harness) logText() string {
	h.logMu.Lock()
	defer h.logMu.Unlock()
	return h.logs.String()
}

type answer struct {
	status int
	header http.Header
	raw    []byte
	body   map[string]any
}

func (h *harness) do(t *testing.T, method, path string, header map[string]string, body string) answer {
	t.Helper()
	req, _ := http.NewRequest(method, h.url+path, strings.NewReader(body))
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, raw: raw}
	_ = json.Unmarshal(raw, &a.body)
	return a
}

var reportHeaders = map[string]string{"Authentication-Type": "bearer good", "Content-Type": "application/json"}

func TestReportAnswers(t *testing.T) {
	h := newHarness(t, Limits{})
	ok := h.do(t, "POST", PartnerPath, reportHeaders, `{"a":1}`)
	if ok.status != 200 || string(ok.raw) != `{"status":"200","message":"Datos ingresados exitosamente!","id":7,"file":"partner_CR-1_20261126T100000000Z.pdf"}`+"\n" {
		t.Fatalf("success: %d %s", ok.status, ok.raw)
	}
	if sub := h.reports.got[0]; sub.Principal.User != "acme" || len(sub.Members) != 1 || sub.RequestID != ok.header.Get("X-Request-Id") {
		t.Errorf("submission = %+v", sub)
	}
	h.reports.receipt.Replayed = true
	if r := h.do(t, "POST", PartnerPath, reportHeaders, `{}`); r.header.Get("Idempotent-Replayed") != "true" {
		t.Error("a replay lacks Idempotent-Replayed")
	}

	retry := domain.NewError(domain.ErrUnavailable, "store_failed", domain.MsgStoreFailed)
	retry.RetryAfter = 1500 * time.Millisecond
	for _, tt := range []struct {
		name    string
		headers map[string]string
		body    string
		err     error
		status  int
		bodySt  string
		code    string
		header  [2]string
	}{
		{"no token", map[string]string{"Content-Type": "application/json"}, `{}`, nil, 401, "401", "invalid_token", [2]string{"WWW-Authenticate", `Bearer error="invalid_token"`}},
		{"token in Authorization", map[string]string{"Authorization": "Bearer good"}, `{}`, nil, 401, "401", "invalid_token", [2]string{}},
		{"bad token", map[string]string{"Authentication-Type": "bearer forged"}, `{}`, nil, 401, "401", "invalid_token", [2]string{}},
		{"not JSON content type", map[string]string{"Authentication-Type": "bearer good", "Content-Type": "text/plain"}, `{}`, nil, 415, "400", "unsupported_media_type", [2]string{}},
		{"not an object", reportHeaders, `[1]`, nil, 400, "400", "invalid_json", [2]string{}},
		{"reused key", reportHeaders, `{}`, domain.NewError(domain.ErrKeyReused, "idempotency_key_reused", "x"), 400, "400", "idempotency_key_reused", [2]string{}},
		{"in progress", reportHeaders, `{}`, domain.NewError(domain.ErrInProgress, "request_in_progress", "x"), 409, "400", "request_in_progress", [2]string{}},
		{"purged", reportHeaders, `{}`, domain.NewError(domain.ErrGone, "report_purged", "x"), 410, "400", "report_purged", [2]string{}},
		{"file too large", reportHeaders, `{}`, domain.NewError(domain.ErrTooLarge, "invalid_report", "x"), 413, "400", "invalid_report", [2]string{}},
		{"store down", reportHeaders, `{}`, retry, 503, "400", "store_failed", [2]string{"Retry-After", "2"}},
		{"unknown error", reportHeaders, `{}`, fmt.Errorf("boom"), 500, "400", "internal_error", [2]string{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h.reports.err = tt.err
			a := h.do(t, "POST", PartnerPath, tt.headers, tt.body)
			if a.status != tt.status || a.body["status"] != tt.bodySt || a.body["code"] != tt.code {
				t.Fatalf("%d %s; want %d, status %q, code %q", a.status, a.raw, tt.status, tt.bodySt, tt.code)
			}
			if tt.header[0] != "" && a.header.Get(tt.header[0]) != tt.header[1] {
				t.Errorf("%s = %q, want %q", tt.header[0], a.header.Get(tt.header[0]), tt.header[1])
			}
			if strings.Contains(string(a.raw), "boom") {
				t.Error("an internal error reached the client")
			}
		})
	}
}

// TestProblemsAreBounded: errors[] lists at most MaxProblems, then says
// how many more; field names are clipped, and the answer stays small.
func TestProblemsAreBounded(t *testing.T) {
	h := newHarness(t, Limits{MaxProblems: 100})
	var ps []domain.Problem
	for i := range 5000 {
		ps = append(ps, domain.Problem{Field: strings.Repeat("k", 10_000) + fmt.Sprint(i), Code: "unknown_field", Message: "campo desconocido"})
	}
	h.reports.err = domain.InvalidReport(ps)
	a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`)
	errs, _ := a.body["errors"].([]any)
	if a.status != 400 || len(errs) != 101 || len(a.raw) > maxErrorBody {
		t.Fatalf("%d, %d entries, %d bytes", a.status, len(errs), len(a.raw))
	}
	last := errs[100].(map[string]any)
	if last["code"] != "more_problems" || !strings.Contains(last["message"].(string), "4900") {
		t.Errorf("last entry = %v", last)
	}
	if f := errs[0].(map[string]any)["field"].(string); len([]rune(f)) > domain.MaxQuoted+1 {
		t.Errorf("a field of %d characters was quoted", len(f))
	}
}

// TestReportsInFlightAreBounded: past MaxInFlight a report is turned away
// at once with 503 and Retry-After, not queued.
func TestReportsInFlightAreBounded(t *testing.T) {
	h := newHarness(t, Limits{MaxInFlight: 2})
	h.reports.hold, h.reports.started = make(chan struct{}), make(chan struct{}, 2)
	var wg sync.WaitGroup
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`); a.status != 200 {
				t.Errorf("held report: %d %s", a.status, a.raw)
			}
		}()
	}
	<-h.reports.started
	<-h.reports.started
	a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`)
	if a.status != 503 || a.body["code"] != "overloaded" || a.header.Get("Retry-After") == "" {
		t.Fatalf("third report: %d %s %v", a.status, a.raw, a.header)
	}
	close(h.reports.hold)
	wg.Wait()
	if a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`); a.status != 200 {
		t.Fatalf("after the others finished: %d", a.status)
	}
	if n := metricValue(t, h.srv, "disbursementd_store_errors_total"); n != 0 {
		t.Errorf("store_errors_total = %v after an overload: the alert on it would page for a full queue", n)
	}
	if n := metricValue(t, h.srv, "disbursementd_reports_overloaded_total"); n != 1 {
		t.Errorf("reports_overloaded_total = %v, want 1", n)
	}
	h.reports.err = domain.NewError(domain.ErrUnavailable, "store_failed", domain.MsgStoreFailed)
	if a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`); a.status != 503 {
		t.Fatalf("store down: %d", a.status)
	}
	if n := metricValue(t, h.srv, "disbursementd_store_errors_total"); n != 1 {
		t.Errorf("store_errors_total = %v after a store failure, want 1", n)
	}
}

func TestTokenAnswers(t *testing.T) {
	h := newHarness(t, Limits{})
	h.tokens.issued = ports.Issued{Token: "tok", ExpiresIn: 24 * time.Hour, LogUser: "acme"}
	creds := `{"user":"acme","password":"pw"}`
	ok := h.do(t, "GET", PartnerPath, nil, creds)
	if ok.status != 200 || ok.body["status"] != 200.0 || ok.body["access_token"] != "tok" || ok.body["expires_in"] != 86400.0 ||
		ok.header.Get("Cache-Control") != "no-store" {
		t.Fatalf("token: %d %s", ok.status, ok.raw)
	}
	if login := h.do(t, "POST", "/auth/login", nil, creds); login.status != 200 || login.body["expires_in"] != 86400.0 {
		t.Fatalf("/auth/login: %d %s", login.status, login.raw)
	}
	throttled := domain.NewError(domain.ErrThrottled, "slow_down", "slow_down")
	throttled.Detail, throttled.RetryAfter = "user", 90*time.Second
	for _, tt := range []struct {
		name             string
		body             string
		err              error
		get, login       int
		code, retryAfter string
	}{
		{"malformed", `{"user":"acme"}`, nil, 400, 401, "invalid_client", ""},
		{"rejected", creds, domain.NewError(domain.ErrInvalidClient, "invalid_client", "invalid_client"), 400, 401, "invalid_client", ""},
		{"throttled", creds, throttled, 429, 429, "slow_down", "90"},
		{"upstream down", creds, domain.NewError(domain.ErrUnavailable, "temporarily_unavailable", "x"), 503, 503, "temporarily_unavailable", ""},
		{"unknown error", creds, fmt.Errorf("boom"), 503, 503, "temporarily_unavailable", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h.tokens.err = tt.err
			get := h.do(t, "GET", PartnerPath, nil, tt.body)
			if get.status != tt.get || get.body["status"] != float64(tt.get) || get.body["error"] != tt.code || get.header.Get("Retry-After") != tt.retryAfter {
				t.Errorf("GET: %d %s Retry-After %q", get.status, get.raw, get.header.Get("Retry-After"))
			}
			login := h.do(t, "POST", "/auth/login", nil, tt.body)
			if login.status != tt.login || login.body["error"] != tt.code || login.header.Get("Retry-After") != tt.retryAfter {
				t.Errorf("/auth/login: %d %s", login.status, login.raw)
			}
			if (login.status == 401) != (login.header.Get("WWW-Authenticate") != "") {
				t.Errorf("/auth/login %d with WWW-Authenticate %q; a 401 needs a challenge", login.status, login.header.Get("WWW-Authenticate"))
			}
		})
	}
}

// TestThrottledLoginsLogOncePerWindow: a flood of refused logins writes
// one log line per throttled key and window, and never the name typed
// when it is not a known user.
func TestThrottledLoginsLogOncePerWindow(t *testing.T) {
	h := newHarness(t, Limits{})
	throttled := domain.NewError(domain.ErrThrottled, "slow_down", "slow_down")
	throttled.Detail, throttled.RetryAfter = "address", time.Minute
	h.tokens.err, h.tokens.issued = throttled, ports.Issued{LogUser: "sha256:0123456789ab"}
	for range 50 {
		if a := h.do(t, "GET", PartnerPath, nil, `{"user":"my secret password","password":"acme"}`); a.status != 429 {
			t.Fatalf("%d", a.status)
		}
	}
	logs := h.logText()
	if n := strings.Count(logs, `"status":429`); n != 1 {
		t.Errorf("%d log lines for 50 throttled attempts from one address, want 1", n)
	}
	if strings.Contains(logs, "my secret password") {
		t.Error("the name typed was logged")
	}
}

func TestRoutesAnswerJSON(t *testing.T) {
	h := newHarness(t, Limits{})
	for _, tt := range []struct {
		method, path string
		status       int
		allow        string
	}{
		{"GET", "/nope", 404, ""},
		{"PUT", PartnerPath, 405, "GET, OPTIONS, POST"},
		{"DELETE", "/healthz", 405, "GET, HEAD, OPTIONS"},
		{"GET", "/auth/login", 405, "OPTIONS, POST"},
		{"HEAD", "/healthz", 200, ""},
		{"HEAD", "/readyz", 200, ""},
		{"OPTIONS", "/anything", 204, ""},
	} {
		a := h.do(t, tt.method, tt.path, nil, "")
		if a.status != tt.status || a.header.Get("Allow") != tt.allow || a.header.Get("Access-Control-Allow-Origin") != "*" {
			t.Errorf("%s %s: %d Allow %q; want %d %q", tt.method, tt.path, a.status, a.header.Get("Allow"), tt.status, tt.allow)
		}
		if tt.status >= 400 && a.body["status"] != float64(tt.status) {
			t.Errorf("%s %s: body %s; want status %d as a number", tt.method, tt.path, a.raw, tt.status)
		}
	}
}

// TestMetricLabelsAreBounded: 2,000 requests with distinct odd methods
// and paths leave /metrics with the series a handful of them left.
func TestMetricLabelsAreBounded(t *testing.T) {
	h := newHarness(t, Limits{})
	// The series of the service's own metrics.
	size := func() int {
		n := 0
		for _, line := range strings.Split(string(h.do(t, "GET", "/metrics", nil, "").raw), "\n") {
			if strings.HasPrefix(line, "disbursementd_") {
				n++
			}
		}
		return n
	}
	send := func(i int) {
		req, _ := http.NewRequest(fmt.Sprintf("M%05d%s", i, strings.Repeat("X", 1000)), h.url+fmt.Sprintf("/p/%d", i), nil)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	for i := range 5 {
		send(i)
	}
	size() // the scrape itself is a request: count it before measuring
	before := size()
	for i := 5; i < 2000; i++ {
		send(i)
	}
	if after := size(); after != before {
		t.Fatalf("/metrics went from %d to %d series with 2,000 odd methods and paths", before, after)
	}
}

// TestContentLengthWithTransferEncodingClosesConnection: a request that
// carries both is answered and its connection closed, so bytes smuggled
// after it are never read as a second request (RFC 9112 §6.1).
func TestContentLengthWithTransferEncodingClosesConnection(t *testing.T) {
	h := newHarness(t, Limits{})
	conn, err := net.Dial("tcp", strings.TrimPrefix(h.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	smuggled := "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"
	body := "2\r\n{}\r\n0\r\n\r\n" + smuggled
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nAuthentication-Type: bearer good\r\nContent-Type: application/json\r\n"+
		"Content-Length: %d\r\nTransfer-Encoding: chunked\r\n\r\n%s", PartnerPath, len(body), body)
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, _ = io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if !resp.Close {
		t.Error("the answer does not close the connection")
	}
	if second, err := http.ReadResponse(r, nil); err == nil {
		t.Fatalf("the smuggled request was answered: %d", second.StatusCode)
	}
}

// TestPanicAnswersByTheStatusRule: a panic in a handler is a 500 whose
// status member follows the package's rule: a string on a report's
// answer, an integer elsewhere; the log has the stack, the client not.
func TestPanicAnswersByTheStatusRule(t *testing.T) {
	h := newHarness(t, Limits{})
	h.reports.err = nil
	h.tokens.issued = ports.Issued{}
	panicky := &panicReports{}
	srv, err := New(Server{Reports: panicky, Exchange: panicky, Auth: h.tokens, Log: slog.New(slog.NewJSONHandler(io.Discard, nil)),
		Clock: sysclock.Clock{}, Limits: h.srv.Limits}, metrics.New())
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewServer(srv.Handler())
	defer ts.Close()
	h.url = ts.URL
	if a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`); a.status != 500 || a.body["status"] != "500" || strings.Contains(string(a.raw), "boom") {
		t.Errorf("report: %d %s", a.status, a.raw)
	}
	if a := h.do(t, "GET", PartnerPath, nil, `{"user":"a","password":"b"}`); a.status != 500 || a.body["status"] != 500.0 {
		t.Errorf("token: %d %s", a.status, a.raw)
	}
}

type panicReports struct{}

func (panicReports) Submit(context.Context, ports.Submission) (domain.Receipt, error) { panic("boom") }
func (panicReports) Token(context.Context, ports.LoginAttempt) (ports.Issued, error)  { panic("boom") }

// TestStopEndsTheReportsShutdownLeaves: a report runs on a context of its
// own, so the listener's Shutdown does not end it; Stop cancels it, waits
// for it to return, and turns later reports away with 503 shutting_down.
func TestStopEndsTheReportsShutdownLeaves(t *testing.T) {
	h := newHarness(t, Limits{ReportTimeout: time.Hour})
	h.reports.untilCancelled, h.reports.started = true, make(chan struct{}, 1)
	done := make(chan answer, 1)
	go func() { done <- h.do(t, "POST", PartnerPath, reportHeaders, `{}`) }()
	<-h.reports.started
	select {
	case a := <-done:
		t.Fatalf("the report returned before Stop: %d", a.status)
	case <-time.After(100 * time.Millisecond):
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := h.srv.Stop(ctx); err != nil {
		t.Fatalf("Stop: %v", err)
	}
	select {
	case a := <-done:
		if a.status != 503 {
			t.Errorf("the cancelled report: %d %s; want 503", a.status, a.raw)
		}
	case <-time.After(30 * time.Second): // a wait for a hang, not a speed
		t.Fatal("Stop returned while the report was still running")
	}
	a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`)
	if a.status != 503 || a.body["code"] != "shutting_down" || a.header.Get("Retry-After") == "" {
		t.Fatalf("a report after Stop: %d %s %v", a.status, a.raw, a.header)
	}
}

// TestStopGivesUpAtItsDeadline: a report that ignores its cancellation
// makes Stop fail at its deadline, naming how many are left.
func TestStopGivesUpAtItsDeadline(t *testing.T) {
	h := newHarness(t, Limits{})
	h.reports.hold, h.reports.started = make(chan struct{}), make(chan struct{}, 1)
	done := make(chan struct{})
	go func() { defer close(done); h.do(t, "POST", PartnerPath, reportHeaders, `{}`) }()
	<-h.reports.started
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	err := h.srv.Stop(ctx)
	close(h.reports.hold)
	<-done
	if err == nil || !strings.Contains(err.Error(), "1 reports still running") {
		t.Fatalf("Stop with a stuck report = %v", err)
	}
}

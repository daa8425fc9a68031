package httpapi

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// logLines parses every line the harness's server logged as JSON, as a
// log pipeline would; a line that is not JSON fails the test.
func logLines(t *testing.T, h *harness) []map[string]any {
	t.Helper()
	var out []map[string]any
	for line := range strings.Lines(h.logText()) {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatalf("a log line is not JSON (%v): %s", err, line)
		}
		out = append(out, m)
	}
	return out
}

// requestLine is the request line of the answer a, found by its
// X-Request-Id.
func requestLine(t *testing.T, h *harness, a answer) map[string]any {
	t.Helper()
	id := a.header.Get("X-Request-Id")
	for _, l := range logLines(t, h) {
		if l["msg"] == "request" && l["request_id"] == id {
			return l
		}
	}
	t.Fatalf("no request line with request_id %q in:\n%s", id, h.logText())
	return nil
}

// withDebugLog is h with its server logging from DEBUG up.
func withDebugLog(t *testing.T, h *harness, change func(*Server)) {
	t.Helper()
	h.rebuild(t, func(s *Server) {
		s.Log = slog.New(slog.NewJSONHandler(lockedWriter{h.logs, h.logMu}, &slog.HandlerOptions{Level: slog.LevelDebug}))
		if change != nil {
			change(s)
		}
	})
}

// refusedReport is what the real catalogue answers a body with a missing
// required field, a bad value and a key that is no field (an
// identification number where a key belongs).
func refusedReport(t *testing.T) error {
	t.Helper()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	body := fixture.Minimal(now, "CR-1")
	delete(body, "Monto Aprobado")
	body["Fecha de Desembolso"] = "valor-secreto-77"
	body["1020304050"] = "x"
	_, err := domain.DefaultCatalogue().MapReport(fixture.Members(body), fixture.FileRules(), now)
	if err == nil {
		t.Fatal("the body was accepted")
	}
	return err
}

// TestRefusedReportLogNamesCodeAndFields: the line of a refused report,
// legacy or /v1, has the answer's code and each problem's field name and
// code; never a value, and a key that is no field only as its hash.
func TestRefusedReportLogNamesCodeAndFields(t *testing.T) {
	h, _ := newV1Harness(t, Limits{})
	h.reports.err = refusedReport(t)
	want := map[string]string{"Monto Aprobado": "required", "Fecha de Desembolso": "invalid_format",
		"sha256:" + domain.HashPrefix("1020304050"): "unknown_field"}
	for _, tt := range []struct {
		path   string
		header map[string]string
		status int
	}{{PartnerPath, reportHeaders, 400}, {"/v1/reports", v1Headers, 422}} {
		a := h.do(t, "POST", tt.path, tt.header, `{}`)
		if a.status != tt.status {
			t.Fatalf("%s: %d %s", tt.path, a.status, a.raw)
		}
		line := requestLine(t, h, a)
		if line["code"] != "invalid_report" {
			t.Errorf("%s: code %v, want invalid_report", tt.path, line["code"])
		}
		got := map[string]string{}
		problems, _ := line["problems"].([]any)
		for _, p := range problems {
			m, _ := p.(map[string]any)
			got[m["field"].(string)] = m["code"].(string)
			if len(m) != 2 {
				t.Errorf("%s: a problem logs more than its field and code: %v", tt.path, m)
			}
		}
		if len(got) != len(want) {
			t.Errorf("%s: problems %v, want %v", tt.path, got, want)
		}
		for f, c := range want {
			if got[f] != c {
				t.Errorf("%s: problem of %q is %q, want %q", tt.path, f, got[f], c)
			}
		}
	}
	for _, secret := range []string{"valor-secreto-77", "1020304050"} {
		if strings.Contains(h.logText(), secret) {
			t.Errorf("the log holds %q:\n%s", secret, h.logText())
		}
	}
}

// TestRefusedReportLogIsBounded: the problems logged are bounded as
// errors[] is, and the line says how many more there were.
func TestRefusedReportLogIsBounded(t *testing.T) {
	h := newHarness(t, Limits{MaxProblems: 2})
	h.reports.err = refusedReport(t)
	line := requestLine(t, h, h.do(t, "POST", PartnerPath, reportHeaders, `{}`))
	if problems, _ := line["problems"].([]any); len(problems) != 2 || line["problems_more"] != float64(1) {
		t.Fatalf("problems %v, problems_more %v; want 2 and 1", line["problems"], line["problems_more"])
	}
}

// TestReportLinesCarryTheKeyHash: every report line, legacy and /v1,
// stored, replayed or refused, has the Idempotency-Key's hash prefix and
// never the key; a request without the header has neither.
func TestReportLinesCarryTheKeyHash(t *testing.T) {
	const key = "acme-CR-1020304050-7"
	h, _ := newV1Harness(t, Limits{})
	keyed := func(base map[string]string) map[string]string {
		out := map[string]string{"Idempotency-Key": key}
		for k, v := range base {
			out[k] = v
		}
		return out
	}
	stored := domain.Receipt{StoredReceipt: domain.StoredReceipt{ID: 7, CreditNumber: "CR-1"}}
	for _, tt := range []struct {
		name    string
		path    string
		header  map[string]string
		receipt domain.Receipt
		err     error
		status  int
	}{
		{"legacy stored", PartnerPath, reportHeaders, stored, nil, 200},
		{"legacy replayed", PartnerPath, reportHeaders, domain.Receipt{StoredReceipt: domain.StoredReceipt{ID: 7}, Replayed: true}, nil, 200},
		{"legacy refused", PartnerPath, reportHeaders, stored, refusedReport(t), 400},
		{"legacy key reused", PartnerPath, reportHeaders, stored, domain.NewError(domain.ErrKeyReused, "idempotency_key_reused", "x"), 400},
		{"v1 stored", "/v1/reports", v1Headers, stored, nil, 201},
		{"v1 replayed", "/v1/reports", v1Headers, domain.Receipt{StoredReceipt: domain.StoredReceipt{ID: 7}, Replayed: true}, nil, 200},
		{"v1 refused", "/v1/reports", v1Headers, stored, refusedReport(t), 422},
	} {
		h.reports.receipt, h.reports.err = tt.receipt, tt.err
		a := h.do(t, "POST", tt.path, keyed(tt.header), `{}`)
		if a.status != tt.status {
			t.Fatalf("%s: %d %s", tt.name, a.status, a.raw)
		}
		if line := requestLine(t, h, a); line["idempotency_key_sha256"] != domain.HashPrefix(key) {
			t.Errorf("%s: idempotency_key_sha256 %v, want %s", tt.name, line["idempotency_key_sha256"], domain.HashPrefix(key))
		}
	}
	if strings.Contains(h.logText(), key) {
		t.Errorf("the log holds the key:\n%s", h.logText())
	}
	h.reports.receipt, h.reports.err = stored, nil
	if line := requestLine(t, h, h.do(t, "POST", PartnerPath, reportHeaders, `{}`)); line["idempotency_key_sha256"] != nil {
		t.Errorf("a report without a key logs %v", line["idempotency_key_sha256"])
	}
}

// TestProbesAndScrapesLogAtDebug: successful probes and scrapes log at
// DEBUG (so not at all at the default INFO); a failing probe and a 405 on
// a probe's path keep their level.
func TestProbesAndScrapesLogAtDebug(t *testing.T) {
	h := newHarness(t, Limits{})
	var failing atomic.Bool
	withDebugLog(t, h, func(s *Server) {
		s.Checks = []Check{{Name: "store", Fn: func(context.Context) error {
			if failing.Load() {
				return errors.New("database down")
			}
			return nil
		}}}
	})
	for _, tt := range []struct {
		method, path string
		level        string
	}{
		{"GET", "/healthz", "DEBUG"}, {"HEAD", "/healthz", "DEBUG"}, {"GET", "/readyz", "DEBUG"},
		{"HEAD", "/readyz", "DEBUG"}, {"GET", "/metrics", "DEBUG"},
		{"DELETE", "/healthz", "INFO"}, {"GET", "/openapi.yaml", "INFO"},
	} {
		if line := requestLine(t, h, h.do(t, tt.method, tt.path, nil, "")); line["level"] != tt.level {
			t.Errorf("%s %s: level %v, want %s", tt.method, tt.path, line["level"], tt.level)
		}
	}
	failing.Store(true)
	if line := requestLine(t, h, h.do(t, "GET", "/readyz", nil, "")); line["level"] != "ERROR" || line["status"] != float64(503) {
		t.Errorf("a failing probe: %v", line)
	}
	// At the default level, a probe leaves no line.
	quiet := newHarness(t, Limits{})
	quiet.do(t, "GET", "/healthz", nil, "")
	quiet.do(t, "GET", "/metrics", nil, "")
	if text := quiet.logText(); text != "" {
		t.Errorf("probes at INFO logged:\n%s", text)
	}
}

// TestTraceparentIsLogged: a valid W3C traceparent (version 00) gives the
// line its trace_id; anything else the specification calls invalid is
// ignored. The answer carries its own X-Request-Id either way.
func TestTraceparentIsLogged(t *testing.T) {
	h := newHarness(t, Limits{})
	const trace = "4bf92f3577b34da6a3ce929d0e0e4736"
	for _, tt := range []struct {
		name   string
		values []string
		want   string
	}{
		{"valid", []string{"00-" + trace + "-00f067aa0ba902b7-01"}, trace},
		{"valid unsampled", []string{"00-" + trace + "-00f067aa0ba902b7-00"}, trace},
		{"none", nil, ""},
		{"upper case", []string{"00-4BF92F3577B34DA6A3CE929D0E0E4736-00f067aa0ba902b7-01"}, ""},
		{"version ff", []string{"ff-" + trace + "-00f067aa0ba902b7-01"}, ""},
		{"another version", []string{"01-" + trace + "-00f067aa0ba902b7-01"}, ""},
		{"trace id zeros", []string{"00-00000000000000000000000000000000-00f067aa0ba902b7-01"}, ""},
		{"parent id zeros", []string{"00-" + trace + "-0000000000000000-01"}, ""},
		{"too long", []string{"00-" + trace + "-00f067aa0ba902b7-01-x"}, ""},
		{"too short", []string{"00-" + trace[1:] + "-00f067aa0ba902b7-01"}, ""},
		{"not hex", []string{"00-" + trace[:31] + "g-00f067aa0ba902b7-01"}, ""},
		{"bad flags", []string{"00-" + trace + "-00f067aa0ba902b7-0x"}, ""},
		{"wrong separator", []string{"00_" + trace + "-00f067aa0ba902b7-01"}, ""},
		{"two headers", []string{"00-" + trace + "-00f067aa0ba902b7-01", "00-" + trace + "-00f067aa0ba902b7-01"}, ""},
	} {
		req := httptest.NewRequest("GET", "/healthz", nil)
		for _, v := range tt.values {
			req.Header.Add("traceparent", v)
		}
		if got := traceID(req.Header); got != tt.want {
			t.Errorf("%s: trace id %q, want %q", tt.name, got, tt.want)
		}
	}
	// Through the server: the line has the trace id and the request id the
	// answer carries.
	a := h.do(t, "GET", "/openapi.yaml", map[string]string{"traceparent": "00-" + trace + "-00f067aa0ba902b7-01"}, "")
	line := requestLine(t, h, a)
	if line["trace_id"] != trace || len(a.header.Get("X-Request-Id")) != 20 {
		t.Errorf("trace_id %v, X-Request-Id %q", line["trace_id"], a.header.Get("X-Request-Id"))
	}
	a = h.do(t, "GET", "/openapi.yaml", map[string]string{"traceparent": "00-" + strings.ToUpper(trace) + "-00f067aa0ba902b7-01"}, "")
	if line := requestLine(t, h, a); line["trace_id"] != nil {
		t.Errorf("an invalid traceparent logged trace_id %v", line["trace_id"])
	}
}

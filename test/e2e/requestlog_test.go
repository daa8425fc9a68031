package e2e

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// TestMetricsAndRequestLog: /metrics exposes the service's series after
// traffic, and each request has one log line with its id, route, status,
// duration, partner user and report id.
func TestMetricsAndRequestLog(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	pdf := fixture.PDF(10 << 10)
	r := in.Report(t, tok, testkit.MustJSON(fixture.FullBody(time.Now(), "CR-MET-1", pdf)))
	if r.Status != 200 {
		t.Fatal(r.Status)
	}
	in.Report(t, "bad", []byte("{}"))
	m := testkit.Call(t, "GET", in.URL+"/metrics", nil, nil)
	for _, want := range []string{
		`disbursementd_http_requests_total{method="POST",route="/api/partner_api.php",status="200"} 1`,
		`disbursementd_http_requests_total{method="POST",route="/api/partner_api.php",status="401"} 1`,
		`disbursementd_reports_stored_total 1`,
		`disbursementd_token_exchanges_total{outcome="ok"} 1`,
		`disbursementd_reports_refused_total{reason="invalid_token"} 1`,
		`disbursementd_http_request_duration_seconds_bucket`,
		`disbursementd_http_in_flight_requests`,
		fmt.Sprintf("disbursementd_file_bytes_written_total %d", len(pdf)),
		`disbursementd_store_errors_total 0`,
		`process_resident_memory_bytes`,
	} {
		if !strings.Contains(string(m.Raw), want) {
			t.Errorf("/metrics lacks %s", want)
		}
	}
	id := r.Header.Get("X-Request-Id")
	var line map[string]any
	for _, l := range strings.Split(in.Logs.String(), "\n") {
		if strings.Contains(l, `"request_id":"`+id+`"`) && strings.Contains(l, `"msg":"request"`) {
			_ = json.Unmarshal([]byte(l), &line)
		}
	}
	if line == nil || line["route"] != "/api/partner_api.php" || line["status"] != float64(200) || line["partner_user"] != testkit.Partner ||
		line["report_id"] != r.Body["id"] || line["duration_ms"] == nil {
		t.Fatalf("request log line: %v", line)
	}
	// An inbound X-Request-Id is logged as the client's, never adopted (on
	// a route that logs at INFO: probes log at DEBUG). The line follows
	// the answer.
	rr := testkit.Call(t, "GET", in.URL+"/openapi.yaml", map[string]string{"X-Request-Id": "client-123"}, nil)
	for end := time.Now().Add(time.Minute); time.Now().Before(end) && !strings.Contains(in.Logs.String(), `"client_request_id":"client-123"`); {
		time.Sleep(10 * time.Millisecond)
	}
	if rr.Header.Get("X-Request-Id") == "client-123" || !strings.Contains(in.Logs.String(), `"client_request_id":"client-123"`) {
		t.Errorf("inbound request id: %q", rr.Header.Get("X-Request-Id"))
	}
	if !strings.Contains(in.Logs.String(), `"store.dsn"`) {
		t.Error("effective configuration not logged at start")
	}
}

package httpapi

import (
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain"
)

// TestUnroutedRequestsOnKnownPathsHaveTheirRoute: preflights, 404s and
// 405s on the service's paths are counted under the route's pattern in
// the request counter and the latency histogram; only a path the service
// does not have is "unmatched" (contract §7: labels from a fixed set).
func TestUnroutedRequestsOnKnownPathsHaveTheirRoute(t *testing.T) {
	h, v1 := newV1Harness(t, Limits{})
	v1.getErr = domain.NewError(domain.ErrNotFound, "not_found", domain.MsgNotFound)
	for _, tt := range []struct {
		method, path string
		header       map[string]string
		status       int
		route        string
	}{
		{"OPTIONS", PartnerPath, nil, 204, PartnerPath},
		{"OPTIONS", "/v1/reports", nil, 204, "/v1/reports"},
		{"OPTIONS", "/v1/reports/42", nil, 204, "/v1/reports/{id}"},
		{"OPTIONS", "/v1/reports/validate", nil, 204, "/v1/reports/validate"},
		{"PUT", PartnerPath, nil, 405, PartnerPath},
		{"DELETE", "/healthz", nil, 405, "/healthz"},
		{"GET", "/v1/token", nil, 405, "/v1/token"},
		{"GET", "/v1/reports/abc", v1Headers, 404, "/v1/reports/{id}"},
		{"GET", "/v1/reports/42", v1Headers, 404, "/v1/reports/{id}"},
		{"GET", "/nope", nil, 404, "unmatched"},
		{"OPTIONS", "/anything", nil, 204, "unmatched"},
		{"GET", "/v1/reports/42/x", v1Headers, 404, "unmatched"},
		{"GET", "/healthz/", nil, 404, "unmatched"},
	} {
		if a := h.do(t, tt.method, tt.path, tt.header, ""); a.status != tt.status {
			t.Fatalf("%s %s: %d, want %d", tt.method, tt.path, a.status, tt.status)
		}
		scrape := string(h.do(t, "GET", "/metrics", nil, "").raw)
		method := methodLabel(tt.method)
		counter := `disbursementd_http_requests_total{method="` + method + `",route="` + tt.route + `",status="` + itoa(int64(tt.status)) + `"}`
		histogram := `disbursementd_http_request_duration_seconds_count{method="` + method + `",route="` + tt.route + `"}`
		for _, series := range []string{counter, histogram} {
			if !strings.Contains(scrape, "\n"+series+" ") {
				t.Errorf("%s %s: no series %s in /metrics", tt.method, tt.path, series)
			}
		}
	}
}

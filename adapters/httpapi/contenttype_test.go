package httpapi

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"
)

// TestTwoContentTypesAreRefused: a request with two Content-Type headers
// is refused as one with two Idempotency-Key headers is (issue 32,
// finding 15), whichever comes first: 400 invalid_request on the legacy
// POST (status "400"), a problem on /v1's report routes, RFC 6749's
// invalid_request on /v1/token; nothing reaches the use case.
func TestTwoContentTypesAreRefused(t *testing.T) {
	h, _ := newV1Harness(t, Limits{})
	for _, types := range [][]string{{"application/json", "text/plain"}, {"text/plain", "application/json"}, {"application/json", "application/json"}} {
		for _, c := range []struct {
			path, auth, token, field string
		}{
			{PartnerPath, "Authentication-Type", "bearer good", "code"},
			{"/v1/reports", "Authorization", "Bearer good", "code"},
			{"/v1/reports/validate", "Authorization", "Bearer good", "code"},
			{"/v1/token", "Authorization", "Basic YWNtZTpzZWNyZXQ=", "error"},
		} {
			req, _ := http.NewRequest("POST", h.url+c.path, strings.NewReader(`{}`))
			req.Header[c.auth] = []string{c.token}
			req.Header["Content-Type"] = types
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			var body map[string]any
			_ = json.Unmarshal(raw, &body)
			if resp.StatusCode != 400 || body[c.field] != "invalid_request" {
				t.Errorf("%s with Content-Type %q: %d %s, want 400 invalid_request", c.path, types, resp.StatusCode, raw)
			}
			if c.path == PartnerPath && body["status"] != "400" {
				t.Errorf("legacy answer's status member: %v, want \"400\"", body["status"])
			}
		}
	}
	if len(h.reports.got) != 0 {
		t.Errorf("%d reports reached the use case", len(h.reports.got))
	}
}

package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// TestRoutesWithoutParametersRefuseThem: a route of /v1 or of the
// decision API that takes no query parameter answers one that comes
// anyway 400 invalid_request naming it, and does nothing: a decision
// with ?dry_run=true is not made, a redelivery with ?endpoint= sends
// nothing, a rotation with ?grace=0 keeps the secret, a DELETE keeps the
// endpoint, a POST /v1/reports with ?dry_run=true stores no report. The
// same requests without the parameter then do what they say.
func TestRoutesWithoutParametersRefuseThem(t *testing.T) {
	x := newS11(t, Limits{})
	bo := x.backoffice(t, "cartera")
	created := x.createEndpoint(t, v1Headers, `{"url":"https://receiver.test/a"}`)
	ep, _ := created.body["id"].(string)
	x.report(t, "CR-1")
	x.clock.Add(listDelay + time.Millisecond)
	evt := x.do(t, "GET", "/v1/events", v1Headers, "").body["data"].([]any)[0].(map[string]any)["id"].(string)
	before, err := x.store.GetEndpoint(t.Context(), "acme", ep)
	must(t, err)
	dueBefore, err := x.store.Due(t.Context(), x.clock.Now().Add(time.Hour), 10, nil, nil, time.Time{})
	must(t, err)
	report, _ := json.Marshal(fixture.FullV1(x.clock.Now(), "CR-2", nil))

	for _, tt := range []struct {
		method, path, param, body string
		admin                     bool
	}{
		{"POST", "/admin/v1/reports/1/decision", "dry_run", acceptBody, true},
		{"POST", "/v1/reports", "dry_run", string(report), false},
		{"POST", "/v1/reports/validate", "strict", string(report), false},
		{"GET", "/v1/reports/1", "include", "", false},
		{"GET", "/v1/events/" + evt, "type", "", false},
		{"POST", "/v1/events/" + evt + "/redeliver", "endpoint", "", false},
		{"POST", "/v1/webhook_endpoints", "dry_run", `{"url":"https://receiver.test/b"}`, false},
		{"GET", "/v1/webhook_endpoints/" + ep, "fields", "", false},
		{"DELETE", "/v1/webhook_endpoints/" + ep, "force", "", false},
		{"POST", "/v1/webhook_endpoints/" + ep + "/rotate_secret", "grace", "", false},
		{"GET", "/v1/webhook_endpoints/" + ep + "/attempts", "limit", "", false},
	} {
		for _, query := range []string{tt.param + "=1", tt.param, "x=1&" + tt.param + "=1"} {
			url := tt.path + "?" + query
			var a answer
			if tt.admin {
				a = x.adminDo(t, tt.method, url, bo, tt.body)
			} else {
				a = x.do(t, tt.method, url, v1Headers, tt.body)
			}
			name := tt.param
			if strings.HasPrefix(query, "x=") {
				name = "x"
			}
			problemOf(t, tt.method+" "+url, a, 400, "invalid_request", name)
		}
	}

	// A parameter without a name is named by what came.
	problemOf(t, "?=1", x.do(t, "GET", "/v1/reports/1?=1", v1Headers, ""), 400, "invalid_request", "=1")

	// Nothing was done.
	if r, err := x.store.GetReport(t.Context(), "acme", 1); err != nil || r.Status != domain.StatusReceived {
		t.Errorf("report 1 after a refused decision: %+v %v, want received", r.StoredReceipt, err)
	}
	if _, err := x.store.GetReport(t.Context(), "acme", 2); err == nil {
		t.Errorf("a refused POST /v1/reports stored report 2")
	}
	after, err := x.store.GetEndpoint(t.Context(), "acme", ep)
	if err != nil || after.Secret != before.Secret || after.PreviousSecret != "" {
		t.Errorf("the endpoint after refused rotations and deletions: %+v %v", after, err)
	}
	if es, _ := x.store.AllEndpoints(t.Context()); len(es) != 1 {
		t.Errorf("endpoints after a refused creation: %d, want 1", len(es))
	}
	dueAfter, err := x.store.Due(t.Context(), x.clock.Now().Add(time.Hour), 10, nil, nil, time.Time{})
	must(t, err)
	if len(dueAfter) != len(dueBefore) {
		t.Errorf("a refused redelivery made deliveries due: %d before, %d after", len(dueBefore), len(dueAfter))
	}

	// Without the parameter each does what it says.
	if a := x.adminDo(t, "POST", "/admin/v1/reports/1/decision", bo, acceptBody); a.status != 200 {
		t.Errorf("the decision without a parameter: %d %s", a.status, a.raw)
	}
	if a := x.do(t, "POST", "/v1/webhook_endpoints/"+ep+"/rotate_secret", v1Headers, ""); a.status != 200 {
		t.Errorf("the rotation without a parameter: %d %s", a.status, a.raw)
	}
	if a := x.do(t, "DELETE", "/v1/webhook_endpoints/"+ep, v1Headers, ""); a.status != 204 {
		t.Errorf("the deletion without a parameter: %d %s", a.status, a.raw)
	}
}

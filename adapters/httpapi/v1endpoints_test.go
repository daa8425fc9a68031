package httpapi

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var betaHeaders = map[string]string{"Authorization": "Bearer good-beta", "Content-Type": "application/json"}

// createEndpoint makes an endpoint of the partner of headers and returns
// the answer.
func (x *s11) createEndpoint(t *testing.T, headers map[string]string, body string) answer {
	t.Helper()
	a := x.do(t, "POST", "/v1/webhook_endpoints", headers, body)
	if a.status != 201 {
		t.Fatalf("POST /v1/webhook_endpoints %s: %d %s", body, a.status, a.raw)
	}
	return a
}

// TestV1EndpointSecretShownOnce: POST /v1/webhook_endpoints answers 201
// with Location and the endpoint, enabled, with a whsec_ secret of 24 to
// 64 random bytes; GET and the list never show it; rotate_secret shows
// the new one, once, and refuses a second rotation during the overlap.
func TestV1EndpointSecretShownOnce(t *testing.T) {
	x := newS11(t, Limits{})
	a := x.createEndpoint(t, v1Headers, `{"url":"https://receiver.test/hook","event_types":["report.rejected"],"description":"Cartera"}`)
	id, _ := a.body["id"].(string)
	secret, _ := a.body["secret"].(string)
	if !domain.ValidEndpointID(id) || a.header.Get("Location") != "/v1/webhook_endpoints/"+id || a.body["status"] != "enabled" ||
		a.body["url"] != "https://receiver.test/hook" || a.body["description"] != "Cartera" || a.body["created_at"] != "2026-11-26T10:00:00.000Z" {
		t.Fatalf("created: %v %s", a.header, a.raw)
	}
	if key, ok := domain.WebhookSecret(secret).Key(); !ok || len(key) < 24 || len(key) > 64 || !strings.HasPrefix(secret, "whsec_") {
		t.Fatalf("secret %q is not whsec_ and 24 to 64 bytes", secret)
	}
	if types, _ := a.body["event_types"].([]any); len(types) != 1 || types[0] != "report.rejected" {
		t.Errorf("event_types: %v", a.body["event_types"])
	}
	got := x.do(t, "GET", "/v1/webhook_endpoints/"+id, v1Headers, "")
	list := x.do(t, "GET", "/v1/webhook_endpoints", v1Headers, "")
	for what, b := range map[string]answer{"GET": got, "list": list} {
		if b.status != 200 || strings.Contains(string(b.raw), "secret") || strings.Contains(string(b.raw), secret[6:20]) {
			t.Errorf("%s shows a secret: %d %s", what, b.status, b.raw)
		}
	}
	if data, _ := list.body["data"].([]any); len(data) != 1 {
		t.Errorf("list: %s", list.raw)
	}
	all := x.createEndpoint(t, v1Headers, `{"url":"https://receiver.test/all"}`)
	if types, ok := all.body["event_types"].([]any); !ok || len(types) != 0 || all.body["description"] != "" {
		t.Errorf("an endpoint of every type: %s (event_types [] means every type)", all.raw)
	}
	rot := x.do(t, "POST", "/v1/webhook_endpoints/"+id+"/rotate_secret", v1Headers, "")
	fresh, _ := rot.body["secret"].(string)
	if rot.status != 200 || fresh == "" || fresh == secret || rot.body["id"] != id {
		t.Fatalf("rotate_secret: %d %s", rot.status, rot.raw)
	}
	if e, _ := x.store.GetEndpoint(t.Context(), "acme", id); string(e.PreviousSecret) != secret || !e.PreviousUntil.Equal(x.clock.Now().Add(24*time.Hour)) {
		t.Errorf("after a rotation the old secret signs until %s (%q), want 24 h", e.PreviousUntil, e.PreviousSecret)
	}
	// A second rotation within the overlap (a retry after a lost answer)
	// is 409 naming its end and keeps both secrets; after it, it rotates.
	until := x.clock.Now().Add(24 * time.Hour)
	x.clock.Add(time.Hour)
	again := x.do(t, "POST", "/v1/webhook_endpoints/"+id+"/rotate_secret", v1Headers, "")
	problemOf(t, "a rotation during the overlap", again, 409, "rotation_in_progress", "")
	if d, _ := again.body["detail"].(string); !strings.Contains(d, until.Format(time.RFC3339)) || strings.Contains(string(again.raw), "whsec_") {
		t.Errorf("the refusal does not name the overlap's end %s, or shows a secret: %s", until.Format(time.RFC3339), again.raw)
	}
	if e, _ := x.store.GetEndpoint(t.Context(), "acme", id); string(e.Secret) != fresh || string(e.PreviousSecret) != secret {
		t.Errorf("a refused rotation changed the secrets")
	}
	x.clock.Add(23 * time.Hour)
	if later := x.do(t, "POST", "/v1/webhook_endpoints/"+id+"/rotate_secret", v1Headers, ""); later.status != 200 || later.body["secret"] == fresh {
		t.Errorf("a rotation after the overlap: %d %s", later.status, later.raw)
	}
}

// TestV1EndpointBadInput: each mistake in an endpoint is its own 4xx
// that names what to change, and makes no endpoint.
func TestV1EndpointBadInput(t *testing.T) {
	x := newS11(t, Limits{})
	long := `{"url":"https://receiver.test/` + strings.Repeat("a", domain.MaxWebhookURLBytes) + `"}`
	for _, tt := range []struct {
		name, body     string
		ctype          string
		status         int
		code, field    string
		detailContains string
	}{
		{"url over 2,048 bytes", long, "", 422, "invalid_endpoint", "url", "2048"},
		{"http to a host not allowed it", `{"url":"http://partner.example/hook"}`, "", 422, "invalid_endpoint", "url", "https"},
		{"a loopback address", `{"url":"https://127.0.0.1/hook"}`, "", 422, "invalid_endpoint", "url", "no pública"},
		{"user information", `{"url":"https://u:p@partner.example/hook"}`, "", 422, "invalid_endpoint", "url", "usuario"},
		{"no url", `{"description":"x"}`, "", 422, "invalid_endpoint", "url", "obligatorio"},
		{"url not text", `{"url":42}`, "", 422, "invalid_endpoint", "url", "texto"},
		{"an unknown event type", `{"url":"https://receiver.test/h","event_types":["report.paid"]}`, "", 422, "invalid_endpoint", "event_types", "report.received"},
		{"event_types not a list", `{"url":"https://receiver.test/h","event_types":"report.accepted"}`, "", 422, "invalid_endpoint", "event_types", "lista"},
		{"an unknown member", `{"url":"https://receiver.test/h","events":["report.accepted"]}`, "", 422, "invalid_endpoint", "events", "url, event_types o description"},
		{"a member twice", `{"url":"https://receiver.test/h","url":"https://receiver.test/i"}`, "", 422, "invalid_endpoint", "url", "más de una vez"},
		{"description too long", `{"url":"https://receiver.test/h","description":"` + strings.Repeat("é", 501) + `"}`, "", 422, "invalid_endpoint", "description", "500"},
		{"not JSON", `{"url":`, "", 400, "invalid_json", "", "JSON"},
		{"a BOM", "\uFEFF{}", "", 400, "invalid_json", "", "BOM"},
		{"not JSON content", `{}`, "text/plain", 415, "unsupported_media_type", "", "application/json"},
		{"a body over 16 KiB", `{"description":"` + strings.Repeat("a", 17<<10) + `"}`, "", 413, "body_too_large", "", "16384"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{"Authorization": "Bearer good", "Content-Type": "application/json"}
			if tt.ctype != "" {
				h["Content-Type"] = tt.ctype
			}
			a := x.do(t, "POST", "/v1/webhook_endpoints", h, tt.body)
			problemOf(t, tt.name, a, tt.status, tt.code, tt.field)
			if d, _ := a.body["detail"].(string); !strings.Contains(d+string(a.raw), tt.detailContains) {
				t.Errorf("%s does not say %q", a.raw, tt.detailContains)
			}
		})
	}
	if es, _ := x.store.AllEndpoints(t.Context()); len(es) != 0 {
		t.Fatalf("refused endpoints were made: %v", es)
	}
}

// TestV1SixthEndpointIsRefused: a partner has at most
// webhooks.max_endpoints (5) endpoints: the sixth is 409 endpoint_limit,
// saying to delete one; another partner's count is its own; once one is
// deleted (204) a new one fits.
func TestV1SixthEndpointIsRefused(t *testing.T) {
	x := newS11(t, Limits{})
	var first string
	for i := range 5 {
		a := x.createEndpoint(t, v1Headers, `{"url":"https://receiver.test/`+itoa(int64(i))+`"}`)
		if i == 0 {
			first = a.body["id"].(string)
		}
	}
	a := x.do(t, "POST", "/v1/webhook_endpoints", v1Headers, `{"url":"https://receiver.test/6"}`)
	problemOf(t, "a sixth endpoint", a, 409, "endpoint_limit", "")
	if d, _ := a.body["detail"].(string); !strings.Contains(d, "5") || !strings.Contains(d, "borre") {
		t.Errorf("the refusal does not say what to change: %s", a.raw)
	}
	x.createEndpoint(t, betaHeaders, `{"url":"https://receiver.test/beta"}`)
	if d := x.do(t, "DELETE", "/v1/webhook_endpoints/"+first, v1Headers, ""); d.status != 204 || len(d.raw) != 0 {
		t.Fatalf("DELETE: %d %s", d.status, d.raw)
	}
	problemOf(t, "GET of a deleted endpoint", x.do(t, "GET", "/v1/webhook_endpoints/"+first, v1Headers, ""), 404, "not_found", "")
	x.createEndpoint(t, v1Headers, `{"url":"https://receiver.test/again"}`)
}

// TestV1AnotherPartnersEndpointIs404: every route of one endpoint
// answers 404 for another partner's endpoint (rotate_secret included) and
// changes nothing of it; an id that is not an endpoint's is 404 too.
func TestV1AnotherPartnersEndpointIs404(t *testing.T) {
	x := newS11(t, Limits{})
	a := x.createEndpoint(t, v1Headers, `{"url":"https://receiver.test/hook"}`)
	id, secret := a.body["id"].(string), a.body["secret"].(string)
	for _, tt := range []struct{ method, path string }{
		{"GET", "/v1/webhook_endpoints/" + id},
		{"DELETE", "/v1/webhook_endpoints/" + id},
		{"POST", "/v1/webhook_endpoints/" + id + "/rotate_secret"},
		{"GET", "/v1/webhook_endpoints/" + id + "/attempts"},
	} {
		problemOf(t, "beta: "+tt.method+" "+tt.path, x.do(t, tt.method, tt.path, betaHeaders, ""), 404, "not_found", "")
		problemOf(t, "acme: "+tt.method+" of no endpoint", x.do(t, tt.method, strings.Replace(tt.path, id, "we_nothing", 1), v1Headers, ""), 404, "not_found", "")
	}
	e, err := x.store.GetEndpoint(t.Context(), "acme", id)
	if err != nil || string(e.Secret) != secret || e.PreviousSecret != "" {
		t.Fatalf("acme's endpoint after beta's calls: %+v %v", e, err)
	}
}

// TestV1EndpointAttempts: the attempts log lists the endpoint's newest
// attempts first, with status_code null when no answer came and error
// null on a delivery.
func TestV1EndpointAttempts(t *testing.T) {
	x := newS11(t, Limits{})
	id := x.createEndpoint(t, v1Headers, `{"url":"https://receiver.test/hook"}`).body["id"].(string)
	x.report(t, "CR-1")
	at := x.clock.Now()
	ev := x.events(t)[0].ID()
	// Two attempts of the report's event, as a delivery worker records
	// them: a timeout, then a 204 five seconds later.
	if _, err := x.store.Dispatch(t.Context(), at, 10); err != nil {
		t.Fatal(err)
	}
	for i, a := range []domain.Attempt{
		{EventID: ev, At: at, Error: domain.AttemptTimeout, Duration: 10 * time.Second},
		{EventID: ev, At: at.Add(5 * time.Second), StatusCode: 204, Duration: 35 * time.Millisecond},
	} {
		due, err := x.store.Due(t.Context(), a.At, 1, nil, nil, time.Time{})
		if err != nil || len(due) != 1 {
			t.Fatalf("attempt %d: due %v %v", i, due, err)
		}
		if ok, err := x.store.Lease(t.Context(), due[0].ID, "w", a.At, a.At.Add(time.Minute)); !ok || err != nil {
			t.Fatalf("attempt %d: lease %v %v", i, ok, err)
		}
		o := ports.DeliveryOutcome{ID: due[0].ID, EndpointSeq: due[0].EndpointSeq, Attempt: a, State: ports.DeliveryPending, NextAt: a.At.Add(5 * time.Second)}
		if a.StatusCode == 204 {
			o.State = ports.DeliveryDelivered
		}
		if ok, err := x.store.Finish(t.Context(), "w", o); !ok || err != nil {
			t.Fatalf("attempt %d: finish %v %v", i, ok, err)
		}
	}
	a := x.do(t, "GET", "/v1/webhook_endpoints/"+id+"/attempts", v1Headers, "")
	var got struct {
		Data []map[string]any `json:"data"`
	}
	must(t, json.Unmarshal(a.raw, &got))
	if a.status != 200 || len(got.Data) != 2 {
		t.Fatalf("attempts: %d %s", a.status, a.raw)
	}
	newest, oldest := got.Data[0], got.Data[1]
	if newest["status_code"] != float64(204) || newest["error"] != nil || newest["duration_ms"] != float64(35) || newest["at"] != "2026-11-26T10:00:05.000Z" {
		t.Errorf("newest: %v", newest)
	}
	if v, ok := oldest["status_code"]; !ok || v != nil || oldest["error"] != "timeout" || oldest["event_id"] != ev {
		t.Errorf("oldest: %v", oldest)
	}
}

// TestV1PreflightAllowsDelete: a page may DELETE its endpoint from a
// browser (the /v1 preflight allows DELETE); the legacy path's preflight
// is unchanged.
func TestV1PreflightAllowsDelete(t *testing.T) {
	x := newS11(t, Limits{})
	for path, want := range map[string]string{"/v1/webhook_endpoints/we_abcdefghijklmnopqrstuvwx": "GET, POST, DELETE, OPTIONS",
		PartnerPath: "GET, POST, OPTIONS"} {
		a := x.do(t, "OPTIONS", path, map[string]string{"Origin": "https://partner.example", "Access-Control-Request-Method": "DELETE"}, "")
		if a.status != 204 || a.header.Get("Access-Control-Allow-Methods") != want {
			t.Errorf("preflight of %s: %d %q, want %q", path, a.status, a.header.Get("Access-Control-Allow-Methods"), want)
		}
	}
}

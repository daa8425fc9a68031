package e2e

import (
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// v1ProblemRules: every /v1 error but the token endpoint's is an RFC 9457
// problem with the legacy code, the legacy statuses but 422 and 404
// (contract §8, "Errors on /v1").
func v1ProblemRules(t *testing.T, e *v1Env) {
	today := time.Now().UTC()
	t.Run("problems: a body that is not one report object stays 400", func(t *testing.T) {
		mustProblem(t, e.post(t, "/v1/reports", e.acme, []byte(`{"Numero de Convenio": `)), 400, "invalid_json")
		mustProblem(t, e.post(t, "/v1/reports", e.acme, []byte(`[1]`)), 400, "invalid_json")
		many := map[string]any{}
		for i := range 300 {
			many[fmt.Sprintf("k%d", i)] = i
		}
		mustProblem(t, e.post(t, "/v1/reports", e.acme, testkit.MustJSON(many)), 400, "too_many_members")
	})
	t.Run("problems: field problems are 422 with every entry in errors[], bounded as on the legacy path", func(t *testing.T) {
		body := fixture.Minimal(today, "CR-PROB-1")
		delete(body, "Primer Nombre")
		for i := range 150 {
			body[fmt.Sprintf("campo %d", i)] = "x"
		}
		r := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(body))
		mustProblem(t, r, 422, "invalid_report")
		legacy := e.in.Report(t, e.legacyAcmeTok, testkit.MustJSON(body))
		if fmt.Sprint(r.Body["errors"]) != fmt.Sprint(legacy.Body["errors"]) {
			t.Fatalf("/v1 errors %v\nlegacy errors %v", r.Body["errors"], legacy.Body["errors"])
		}
		list := r.Body["errors"].([]any)
		last := list[len(list)-1].(map[string]any)
		if len(list) != 101 || last["code"] != "more_problems" {
			t.Fatalf("%d entries, the last %v; want 100 and more_problems", len(list), last)
		}
	})
	t.Run("problems: the legacy statuses and codes", func(t *testing.T) {
		key := "prob-key-1"
		if r := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(fixture.Minimal(today, "CR-PROB-2")), "Idempotency-Key", key); r.Status != http.StatusCreated {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		mustProblem(t, e.post(t, "/v1/reports", e.acme, testkit.MustJSON(fixture.Minimal(today, "CR-PROB-3")), "Idempotency-Key", key), 400, "idempotency_key_reused")
		mustProblem(t, e.post(t, "/v1/reports", e.acme, testkit.MustJSON(fixture.Minimal(today, "CR-PROB-4")), "Idempotency-Key", strings.Repeat("k", 256)),
			400, "invalid_idempotency_key")
		mustProblem(t, testkit.Call(t, http.MethodPost, e.in.URL+"/v1/reports", map[string]string{"Authorization": "Bearer " + e.acme, "Content-Type": "text/plain"},
			testkit.MustJSON(fixture.Minimal(today, "CR-PROB-5"))), 415, "unsupported_media_type")
		big := fixture.Minimal(today, "CR-PROB-6")
		big["Observaciones"] = strings.Repeat("x", 33<<20)
		mustProblem(t, e.post(t, "/v1/reports", e.acme, testkit.MustJSON(big)), 413, "body_too_large")
	})
	t.Run("problems: unknown /v1 paths and methods", func(t *testing.T) {
		mustProblem(t, e.get(t, "/v1/nothing", e.acme), 404, "not_found")
		mustProblem(t, testkit.Call(t, http.MethodGet, e.in.URL+"/v1", nil, nil), 404, "not_found")
		for path, allow := range map[string]string{"/v1/reports": "GET, OPTIONS, POST", "/v1/token": "OPTIONS, POST",
			"/v1/reports/7": "GET, OPTIONS", "/v1/reports/validate": "OPTIONS, POST"} {
			r := testkit.Call(t, http.MethodDelete, e.in.URL+path, map[string]string{"Authorization": "Bearer " + e.acme}, nil)
			mustProblem(t, r, 405, "method_not_allowed")
			if r.Header.Get("Allow") != allow {
				t.Errorf("DELETE %s: Allow %q, want %q", path, r.Header.Get("Allow"), allow)
			}
		}
		// The legacy path's unknowns keep their answers.
		if r := testkit.Call(t, http.MethodGet, e.in.URL+"/v2/reports", nil, nil); r.Status != 404 || r.Body["status"] != float64(404) {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
	})
}

// v1CORSRules: a page of another origin may call /v1 (contract §8,
// "CORS on /v1"); the legacy headers stay as they were.
func v1CORSRules(t *testing.T, e *v1Env) {
	origin := map[string]string{"Origin": "https://partner.example"}
	t.Run("cors: the preflight of /v1 allows Authorization, Content-Type, Idempotency-Key and X-Request-Id", func(t *testing.T) {
		for _, path := range []string{"/v1/token", "/v1/reports", "/v1/reports/7", "/v1/reports/validate"} {
			r := testkit.Call(t, http.MethodOptions, e.in.URL+path, map[string]string{"Origin": "https://partner.example", "Access-Control-Request-Method": "POST",
				"Access-Control-Request-Headers": "authorization, content-type, idempotency-key, x-request-id"}, nil)
			allowed := headerSet(r.Header.Get("Access-Control-Allow-Headers"))
			if r.Status != http.StatusNoContent || r.Header.Get("Access-Control-Allow-Origin") != "*" ||
				!strings.Contains(r.Header.Get("Access-Control-Allow-Methods"), "POST") ||
				!allowed["authorization"] || !allowed["content-type"] || !allowed["idempotency-key"] || !allowed["x-request-id"] {
				t.Fatalf("OPTIONS %s: %d %v", path, r.Status, r.Header)
			}
		}
		legacy := testkit.Call(t, http.MethodOptions, e.in.URL+"/api/partner_api.php", origin, nil)
		if legacy.Header.Get("Access-Control-Allow-Headers") != "Content-Type, Authentication-Type, Idempotency-Key" ||
			legacy.Header.Get("Access-Control-Expose-Headers") != "X-Request-Id, Retry-After, WWW-Authenticate, Idempotent-Replayed" {
			t.Fatalf("the legacy preflight changed: %v", legacy.Header)
		}
	})
	t.Run("cors: /v1 answers expose Location, Idempotent-Replayed, Retry-After and X-Request-Id", func(t *testing.T) {
		h := testkit.V1Header(e.acme, "Origin", "https://partner.example")
		r := testkit.Call(t, http.MethodPost, e.in.URL+"/v1/reports", h, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-CORS-1")))
		exposed := headerSet(r.Header.Get("Access-Control-Expose-Headers"))
		if r.Status != http.StatusCreated || r.Header.Get("Access-Control-Allow-Origin") != "*" ||
			!exposed["location"] || !exposed["idempotent-replayed"] || !exposed["retry-after"] || !exposed["x-request-id"] {
			t.Fatalf("%d %v", r.Status, r.Header)
		}
		refused := testkit.Call(t, http.MethodGet, e.in.URL+"/v1/reports", origin, nil)
		if refused.Status != 401 || !headerSet(refused.Header.Get("Access-Control-Expose-Headers"))["www-authenticate"] ||
			refused.Header.Get("Access-Control-Allow-Origin") != "*" {
			t.Fatalf("a refusal: %d %v", refused.Status, refused.Header)
		}
		legacy := e.in.Report(t, e.legacyAcmeTok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-CORS-2")))
		if legacy.Header.Get("Access-Control-Expose-Headers") != "X-Request-Id, Retry-After, WWW-Authenticate, Idempotent-Replayed" {
			t.Fatalf("the legacy answer's exposed headers changed: %q", legacy.Header.Get("Access-Control-Expose-Headers"))
		}
	})
}

// headerSet is a comma-separated header list, lower-cased.
func headerSet(list string) map[string]bool {
	out := map[string]bool{}
	for _, h := range strings.Split(list, ",") {
		out[strings.ToLower(strings.TrimSpace(h))] = true
	}
	return out
}

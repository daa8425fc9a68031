package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// v1DetailRules: the /v1 details of contract §10, each a named subtest
// (the money patterns are v1MoneyRules', the credentials
// v1CredentialRules').
func v1DetailRules(t *testing.T, e *v1Env) {
	today := time.Now().UTC()
	t.Run("details: a replay answers 200, Idempotent-Replayed and the same Location", func(t *testing.T) {
		for _, key := range []string{"details-replay-1", ""} {
			body := testkit.MustJSON(fixture.Minimal(today, "CR-DET-REPLAY"+key))
			var extra []string
			if key != "" {
				extra = []string{"Idempotency-Key", key}
			}
			first := e.post(t, "/v1/reports", e.acme, body, extra...)
			again := e.post(t, "/v1/reports", e.acme, body, extra...)
			loc := first.Header.Get("Location")
			if first.Status != http.StatusCreated || loc == "" {
				t.Fatalf("first: %d %q %s", first.Status, loc, first.Raw)
			}
			if again.Status != http.StatusOK || again.Header.Get("Idempotent-Replayed") != "true" || again.Header.Get("Location") != loc {
				t.Fatalf("key %q: the replay is %d, Idempotent-Replayed %q, Location %q; want 200, true, %q",
					key, again.Status, again.Header.Get("Idempotent-Replayed"), again.Header.Get("Location"), loc)
			}
			if got := e.get(t, again.Header.Get("Location"), e.acme); got.Status != http.StatusOK || got.Body["id"] != first.Body["id"] {
				t.Fatalf("GET the replay's Location: %d %s", got.Status, got.Raw)
			}
		}
	})
	t.Run("details: two Idempotency-Key headers are 400 invalid_request on both paths, nothing stored", func(t *testing.T) {
		before := e.rows(t)
		two := func(path string, h http.Header) testkit.Reply {
			h.Add("Idempotency-Key", "details-two-a")
			h.Add("Idempotency-Key", "details-two-b")
			return send(t, http.MethodPost, e.in.URL+path, h, testkit.MustJSON(fixture.DecimalsAsStrings(fixture.Minimal(today, "CR-DET-TWO"))))
		}
		mustProblem(t, two("/v1/reports", http.Header{"Authorization": {"Bearer " + e.acme}, "Content-Type": {"application/json"}}), 400, "invalid_request")
		legacy := two("/api/partner_api.php", http.Header{"Authentication-Type": {"bearer " + e.legacyAcmeTok}, "Content-Type": {"application/json"}})
		if legacy.Status != http.StatusBadRequest || legacy.Body["status"] != "400" || legacy.Body["code"] != "invalid_request" {
			t.Fatalf("legacy: %d %s", legacy.Status, legacy.Raw)
		}
		if after := e.rows(t); after != before {
			t.Fatalf("%d reports stored", after-before)
		}
	})
	t.Run("details: a refused token's problem says why in reason", func(t *testing.T) {
		own, kid := mustReadKey(t, e.in.Config.Auth.PrivateKeyFile), e.in.Keys.KeyID()
		now := time.Now()
		expired := sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) {
			c["iat"], c["nbf"], c["exp"] = now.Add(-48*time.Hour).Unix(), now.Add(-48*time.Hour).Unix(), now.Add(-24*time.Hour).Unix()
		}))
		early := sign(t, jwt.SigningMethodRS256, own, kid, claims(now, func(c jwt.MapClaims) { c["nbf"] = now.Add(time.Hour).Unix() }))
		const leaver = "leaver"
		e.in.AddUser(t, leaver, "900555666", "a password of the leaver")
		inactive := e.token(t, leaver, "a password of the leaver")
		if err := e.in.Store.SetActive(t.Context(), leaver, false); err != nil {
			t.Fatal(err)
		}
		for reason, auth := range map[string]string{
			"missing":       "",
			"malformed":     "Bearer abc",
			"signature":     "Bearer " + e.acme[:len(e.acme)-4] + "AAAA",
			"expired":       "Bearer " + expired,
			"not_yet_valid": "Bearer " + early,
			"user_inactive": "Bearer " + inactive,
		} {
			h := map[string]string{}
			if auth != "" {
				h["Authorization"] = auth
			}
			r := testkit.Call(t, http.MethodGet, e.in.URL+"/v1/reports", h, nil)
			mustProblem(t, r, 401, "invalid_token")
			if r.Body["reason"] != reason {
				t.Errorf("%s: reason %v in %s", reason, r.Body["reason"], r.Raw)
			}
		}
		// Other problems have no reason.
		if r := e.get(t, "/v1/reports/999999999", e.acme); r.Body["reason"] != nil {
			t.Errorf("a 404 with a reason: %s", r.Raw)
		}
	})
	t.Run("details: received_from after received_to is 400 naming both", func(t *testing.T) {
		r := e.get(t, "/v1/reports?received_from=2026-11-21&received_to=2026-11-20", e.acme)
		mustProblem(t, r, 400, "invalid_request")
		if d := fmt.Sprint(r.Body["detail"]); !strings.Contains(d, "received_from") || !strings.Contains(d, "received_to") {
			t.Fatalf("the detail names not both: %s", r.Raw)
		}
		if r := e.get(t, "/v1/reports?received_from=2026-11-20&received_to=2026-11-20", e.acme); r.Status != http.StatusOK {
			t.Fatalf("an empty range [d, d): %d %s", r.Status, r.Raw)
		}
	})
	t.Run("details: an offset sent as a space is 400 saying to encode + as %2B", func(t *testing.T) {
		r := e.get(t, "/v1/reports?received_from=2026-11-20T00:00:00+01:00", e.acme)
		mustProblem(t, r, 400, "invalid_request")
		if !strings.Contains(fmt.Sprint(r.Body["detail"]), "%2B") {
			t.Fatalf("the detail does not say to encode + as %%2B: %s", r.Raw)
		}
		if r := e.get(t, "/v1/reports?received_from="+url.QueryEscape("2026-11-20T00:00:00+01:00"), e.acme); r.Status != http.StatusOK {
			t.Fatalf("%%2B-encoded: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("details: report ids in paths are canonical decimal", func(t *testing.T) {
		stored := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(fixture.Minimal(today, "CR-DET-ID")))
		id := fmt.Sprint(stored.Body["id"])
		if r := e.get(t, "/v1/reports/"+id, e.acme); r.Status != http.StatusOK {
			t.Fatalf("/v1/reports/%s: %d %s", id, r.Status, r.Raw)
		}
		for _, p := range []string{"0" + id, "+" + id, "00" + id} {
			mustProblem(t, e.get(t, "/v1/reports/"+p, e.acme), 404, "not_found")
		}
	})
	t.Run("details: a method a /v1 route lacks is 405 with Allow", func(t *testing.T) {
		for _, c := range []struct{ method, path, allow string }{
			{http.MethodGet, "/v1/reports/validate", "OPTIONS, POST"},
			{http.MethodPut, "/v1/reports/validate", "OPTIONS, POST"},
			{http.MethodPut, "/v1/reports/1", "GET, OPTIONS"},
			{http.MethodGet, "/v1/token", "OPTIONS, POST"},
		} {
			r := testkit.Call(t, c.method, e.in.URL+c.path, map[string]string{"Authorization": "Bearer " + e.acme}, nil)
			mustProblem(t, r, 405, "method_not_allowed")
			if r.Header.Get("Allow") != c.allow {
				t.Errorf("%s %s: Allow %q, want %q", c.method, c.path, r.Header.Get("Allow"), c.allow)
			}
		}
	})
	t.Run("details: text is stored and compared in NFC on both paths", func(t *testing.T) {
		decomposed, composed := "Pe\u0301rez", "P\u00e9rez"
		body := fixture.Minimal(today, "CR-DET-NFC")
		body["Primer Apellido"] = decomposed
		first := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(body))
		if first.Status != http.StatusCreated {
			t.Fatalf("%d %s", first.Status, first.Raw)
		}
		body["Primer Apellido"] = composed
		if again := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(body)); again.Status != http.StatusOK || again.Body["id"] != first.Body["id"] {
			t.Fatalf("the precomposed name is another report: %d %s", again.Status, again.Raw)
		}
		body["Primer Apellido"] = decomposed
		if legacy := e.in.Report(t, e.legacyAcmeTok, testkit.MustJSON(body)); legacy.Status != http.StatusOK || legacy.Body["id"] != first.Body["id"] ||
			legacy.Header.Get("Idempotent-Replayed") != "true" {
			t.Fatalf("the legacy path stores the decomposed name apart: %d %s", legacy.Status, legacy.Raw)
		}
		got := e.get(t, fmt.Sprintf("/v1/reports/%v", first.Body["id"]), e.acme)
		if f, _ := got.Body["fields"].(map[string]any); f["Primer Apellido"] != composed {
			t.Fatalf("stored %q, want the NFC %q", f["Primer Apellido"], composed)
		}
	})
	t.Run("details: a failed look-up says it could not read, not that it could not copy to a temporary table", func(t *testing.T) {
		in := testkit.MustStart(t, e.store(t))
		in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
		tok := in.Token(t, testkit.Partner, testkit.Password)
		db, err := storetest.OpenSQL(in.Config.Store.Driver, in.Config.Store.DSN)
		if err != nil {
			t.Fatal(err)
		}
		defer db.Close()
		if _, err := db.Exec("ALTER TABLE partner_disbursement_staging RENAME TO staging_gone"); err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{"/v1/reports", "/v1/reports/1"} {
			r := testkit.Call(t, http.MethodGet, in.URL+path, map[string]string{"Authorization": "Bearer " + tok}, nil)
			mustProblem(t, r, 503, "store_failed")
			if d := fmt.Sprint(r.Body["detail"]); strings.Contains(d, "tabla temporal") || !strings.Contains(d, "consultar") {
				t.Fatalf("GET %s: %s", path, r.Raw)
			}
		}
	})
}

// send is call with a header that may repeat a name.
func send(t testing.TB, method, url string, h http.Header, body []byte) testkit.Reply {
	t.Helper()
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header = h
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	r := testkit.Reply{Status: resp.StatusCode, Header: resp.Header, Raw: raw}
	if len(raw) > 0 {
		_ = json.Unmarshal(raw, &r.Body)
	}
	return r
}

// v1CredentialRules: POST /v1/token's credentials as §10 has them.
func v1CredentialRules(t *testing.T, e *v1Env) {
	// Passwords with the characters a client library may leave unencoded:
	// one that form-decodes to another password, one that does not decode.
	const user, secret = "plus-user", "p+ss%41word-long"
	const pctUser, pctSecret = "pct-user", "all of it: 100%"
	e.in.AddUser(t, user, "900333444", secret)
	e.in.AddUser(t, pctUser, "900333445", pctSecret)
	ok := func(t *testing.T, r testkit.Reply) {
		t.Helper()
		if r.Status != http.StatusOK || r.Body["access_token"] == nil {
			t.Fatalf("%d %s; want a token", r.Status, r.Raw)
		}
	}
	form := url.Values{"grant_type": {"client_credentials"}, "client_id": {user}, "client_secret": {secret}}.Encode()
	t.Run("details: the same credentials in Basic and in the body are accepted; different ones are 400", func(t *testing.T) {
		ok(t, testkit.TokenCall(t, e.in, map[string]string{"Authorization": testkit.BasicAuth(user, secret)}, testkit.FormCT, form))
		// A client that leaves Basic unencoded and encodes the form sends the same pair too.
		ok(t, testkit.TokenCall(t, e.in, map[string]string{"Authorization": "Basic " + b64(user+":"+secret)}, testkit.FormCT, form))
		ok(t, testkit.TokenCall(t, e.in, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)}, "application/json",
			string(testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))))
		other := url.Values{"grant_type": {"client_credentials"}, "client_id": {testkit.Partner}, "client_secret": {testkit.Password}}.Encode()
		r := testkit.TokenCall(t, e.in, map[string]string{"Authorization": testkit.BasicAuth(user, secret)}, testkit.FormCT, other)
		if r.Status != http.StatusBadRequest || r.Body["error"] != "invalid_request" {
			t.Fatalf("different pairs: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("details: Basic credentials not form-encoded are checked as sent, in the same attempt and throttle slot", func(t *testing.T) {
		ok(t, testkit.TokenCall(t, e.in, map[string]string{"Authorization": "Basic " + b64(user+":"+secret)}, testkit.FormCT, "grant_type=client_credentials"))
		ok(t, testkit.TokenCall(t, e.in, map[string]string{"Authorization": "Basic " + b64(pctUser+":"+pctSecret)}, testkit.FormCT, "grant_type=client_credentials"))
		// Encoded as RFC 6749 says, both still work.
		ok(t, testkit.TokenCall(t, e.in, map[string]string{"Authorization": testkit.BasicAuth(user, secret)}, testkit.FormCT, "grant_type=client_credentials"))
		ok(t, testkit.TokenCall(t, e.in, map[string]string{"Authorization": testkit.BasicAuth(pctUser, pctSecret)}, testkit.FormCT, "grant_type=client_credentials"))
		// With a budget of 2 failures, two refused attempts that each
		// check two pairs leave the third attempt throttled, not the second.
		th := testkit.MustStart(t, e.store(t), func(c *config.Config) { c.Throttle.UserFailures, c.Throttle.AddrFailures = 2, 0 })
		th.AddUser(t, user, "900333444", secret)
		wrong := map[string]string{"Authorization": "Basic " + b64(user+":wrong+pass%41")}
		for i := range 2 {
			if r := testkit.TokenCall(t, th, wrong, testkit.FormCT, "grant_type=client_credentials"); r.Status != http.StatusUnauthorized || r.Body["error"] != "invalid_client" {
				t.Fatalf("refused attempt %d: %d %s; want 401 invalid_client", i+1, r.Status, r.Raw)
			}
		}
		if r := testkit.TokenCall(t, th, map[string]string{"Authorization": "Basic " + b64(user+":"+secret)}, testkit.FormCT, "grant_type=client_credentials"); r.Status != http.StatusTooManyRequests {
			t.Fatalf("after two refused attempts: %d %s; want 429", r.Status, r.Raw)
		}
	})
}

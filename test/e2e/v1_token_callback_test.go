package e2e

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"testing"

	"github.com/lender/disbursementd/test/testkit"
)

// v1TokenCallbackRules: a token renewal as hey-api's generated client
// sends it with the common `auth: () => token` callback: the token it
// holds as HTTP Basic (base64 of the JWT, no id:secret pair) beside the
// form's client_id and client_secret. The body's pair is the client's
// credential (issue 24); without a pair in the body, or with a Basic that
// is a pair, the earlier rules stand.
func v1TokenCallbackRules(t *testing.T, e *v1Env) {
	asBasic := map[string]string{"Authorization": "Basic " + base64.StdEncoding.EncodeToString([]byte(e.acme))}
	t.Run("token: a renewal with the old token as Basic and the pair in the form gets a token", func(t *testing.T) {
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {testkit.Partner}, "client_secret": {testkit.Password}}
		r := testkit.TokenCall(t, e.in, asBasic, testkit.FormCT, form.Encode())
		tok, _ := r.Body["access_token"].(string)
		if r.Status != http.StatusOK || tok == "" {
			t.Fatalf("%d %s; want a token", r.Status, r.Raw)
		}
		if got := e.get(t, "/v1/reports", tok); got.Status != http.StatusOK {
			t.Fatalf("the renewed token on /v1: %d %s", got.Status, got.Raw)
		}
	})
	t.Run("token: the old token as Basic with a wrong pair, or no pair, in the form is still 401", func(t *testing.T) {
		for _, form := range []url.Values{
			{"grant_type": {"client_credentials"}, "client_id": {testkit.Partner}, "client_secret": {"wrong"}},
			{"grant_type": {"client_credentials"}},
		} {
			r := testkit.TokenCall(t, e.in, asBasic, testkit.FormCT, form.Encode())
			if r.Status != http.StatusUnauthorized || r.Body["error"] != "invalid_client" {
				t.Fatalf("form %v: %d %s; want 401 invalid_client", form, r.Status, r.Raw)
			}
		}
	})
}

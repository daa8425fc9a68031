package testkit

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"testing"
)

// FormCT is the content type of a form, as /v1/token takes it.
const FormCT = "application/x-www-form-urlencoded"

// TokenCall posts body to /v1/token with the given Content-Type.
func TokenCall(t testing.TB, in *Instance, header map[string]string, contentType, body string) Reply {
	t.Helper()
	h := map[string]string{"Content-Type": contentType}
	for k, v := range header {
		h[k] = v
	}
	return Call(t, http.MethodPost, in.URL+"/v1/token", h, []byte(body))
}

// BasicAuth is HTTP Basic as RFC 6749 §2.3.1 has a client send it: each
// part form-urlencoded, then joined by ':' and base64-encoded.
func BasicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(user)+":"+url.QueryEscape(pass)))
}

// V1Header is the header of /v1 requests with tok, and extra pairs.
func V1Header(tok string, extra ...string) map[string]string {
	h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + tok}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

// V1Token gets a token of in through POST /v1/token, as an OAuth client
// does.
func V1Token(t testing.TB, in *Instance, user, pass string) string {
	t.Helper()
	return V1TokenAt(t, in.URL, user, pass)
}

// V1TokenAt is V1Token of the service at base (a process's URL).
func V1TokenAt(t testing.TB, base, user, pass string) string {
	t.Helper()
	r := Call(t, http.MethodPost, base+"/v1/token", map[string]string{"Content-Type": FormCT, "Authorization": BasicAuth(user, pass)}, []byte("grant_type=client_credentials"))
	tok, _ := r.Body["access_token"].(string)
	if r.Status != http.StatusOK || tok == "" {
		t.Fatalf("POST /v1/token for %s: %d %s", user, r.Status, r.Raw)
	}
	return tok
}

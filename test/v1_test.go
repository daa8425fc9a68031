package test

import (
	"encoding/base64"
	"net/http"
	"net/url"
	"os"
	"testing"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/storetest"
)

// TestV1SQLite and TestV1MySQL hold the service to every rule of contract
// §8, each a named subtest, through a real listener on each store.
func TestV1SQLite(t *testing.T) {
	v1Rules(t, func(testing.TB) func(*config.Config) { return func(*config.Config) {} })
}

func TestV1MySQL(t *testing.T) {
	storetest.ServerDSN(t)
	v1Rules(t, withMySQL)
}

// v1Env is the instance the rules share, with two partners' tokens from
// /v1/token; store gives a fresh store of the same kind to an instance a
// rule needs for itself.
type v1Env struct {
	in            *instance
	store         func(testing.TB) func(*config.Config)
	acme, globex  string
	driver, dsn   string
	uploadsDir    string
	legacyAcmeTok string
}

// The second partner of the /v1 tests.
const (
	otherPartner  = "globex"
	otherPassword = "globex: a different password"
)

func v1Rules(t *testing.T, store func(testing.TB) func(*config.Config)) {
	in := mustStart(t, store(t))
	in.addUser(t, partner, nit, password)
	in.addUser(t, otherPartner, "900765432", otherPassword)
	e := &v1Env{in: in, store: store, driver: in.Config.Store.Driver, dsn: in.Config.Store.DSN, uploadsDir: in.Config.Uploads.Dir}
	e.acme = e.token(t, partner, password)
	e.globex = e.token(t, otherPartner, otherPassword)
	e.legacyAcmeTok = in.token(t, partner, password)
	v1TokenRules(t, e)
	v1BearerRules(t, e)
	v1ReportRules(t, e)
	v1LookupRules(t, e)
	v1ProblemRules(t, e)
	v1CORSRules(t, e)
	v1DetailRules(t, e)
	v1CredentialRules(t, e)
	v1TokenCallbackRules(t, e)
	v1MoneyRules(t, e)
}

// token gets a token through POST /v1/token, as an OAuth client does.
func (e *v1Env) token(t testing.TB, user, pass string) string {
	t.Helper()
	return v1Token(t, e.in, user, pass)
}

// v1Token gets a token of in through POST /v1/token, as an OAuth client
// does.
func v1Token(t testing.TB, in *instance, user, pass string) string {
	t.Helper()
	r := tokenCall(t, in, map[string]string{"Authorization": basicAuth(user, pass)}, formCT, "grant_type=client_credentials")
	tok, _ := r.Body["access_token"].(string)
	if r.Status != http.StatusOK || tok == "" {
		t.Fatalf("POST /v1/token for %s: %d %s", user, r.Status, r.Raw)
	}
	return tok
}

const formCT = "application/x-www-form-urlencoded"

// tokenCall posts body to /v1/token with the given Content-Type.
func tokenCall(t testing.TB, in *instance, header map[string]string, contentType, body string) reply {
	t.Helper()
	h := map[string]string{"Content-Type": contentType}
	for k, v := range header {
		h[k] = v
	}
	return call(t, http.MethodPost, in.URL+"/v1/token", h, []byte(body))
}

// basicAuth is HTTP Basic as RFC 6749 §2.3.1 has a client send it: each
// part form-urlencoded, then joined by ':' and base64-encoded.
func basicAuth(user, pass string) string {
	return "Basic " + base64.StdEncoding.EncodeToString([]byte(url.QueryEscape(user)+":"+url.QueryEscape(pass)))
}

// v1Header is the header of /v1 requests with tok, and extra pairs.
func v1Header(tok string, extra ...string) map[string]string {
	h := map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + tok}
	for i := 0; i+1 < len(extra); i += 2 {
		h[extra[i]] = extra[i+1]
	}
	return h
}

func (e *v1Env) post(t testing.TB, path, tok string, body []byte, extra ...string) reply {
	t.Helper()
	return call(t, http.MethodPost, e.in.URL+path, v1Header(tok, extra...), body)
}

func (e *v1Env) get(t testing.TB, path, tok string) reply {
	t.Helper()
	return call(t, http.MethodGet, e.in.URL+path, map[string]string{"Authorization": "Bearer " + tok}, nil)
}

// rows counts the stored reports.
func (e *v1Env) rows(t testing.TB) int64 { return storetest.CountReports(t, e.driver, e.dsn) }

// files counts the files in the upload directory.
func (e *v1Env) files(t testing.TB) int {
	t.Helper()
	entries, err := os.ReadDir(e.uploadsDir)
	if err != nil {
		t.Fatal(err)
	}
	return len(entries)
}

// mustProblem checks that r is an RFC 9457 problem of status and code:
// its media type, every member, and request_id equal to X-Request-Id.
func mustProblem(t testing.TB, r reply, status int, code string) {
	t.Helper()
	if r.Status != status || r.Header.Get("Content-Type") != "application/problem+json" {
		t.Fatalf("%d %s %s; want a %d problem", r.Status, r.Header.Get("Content-Type"), r.Raw, status)
	}
	b := r.Body
	if b["type"] != "about:blank" || b["status"] != float64(status) || b["code"] != code || b["title"] == "" ||
		b["detail"] == "" || b["request_id"] != r.Header.Get("X-Request-Id") {
		t.Fatalf("problem %s; want status %d, code %s, request_id %s", r.Raw, status, code, r.Header.Get("X-Request-Id"))
	}
}

package e2e

import (
	"net/http"
	"os"
	"testing"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestV1SQLite and TestV1MySQL hold the service to every rule of contract
// §8, each a named subtest, through a real listener on each store.
func TestV1SQLite(t *testing.T) {
	t.Parallel()
	v1Rules(t, func(testing.TB) func(*config.Config) { return func(*config.Config) {} })
}

func TestV1MySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	v1Rules(t, testkit.WithMySQL)
}

// v1Env is the instance the rules share, with two partners' tokens from
// /v1/token; store gives a fresh store of the same kind to an instance a
// rule needs for itself.
type v1Env struct {
	in            *testkit.Instance
	store         func(testing.TB) func(*config.Config)
	acme, globex  string
	driver, dsn   string
	uploadsDir    string
	legacyAcmeTok string
}

func v1Rules(t *testing.T, store func(testing.TB) func(*config.Config)) {
	in := testkit.MustStart(t, store(t))
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	in.AddUser(t, testkit.OtherPartner, "900765432", testkit.OtherPassword)
	e := &v1Env{in: in, store: store, driver: in.Config.Store.Driver, dsn: in.Config.Store.DSN, uploadsDir: in.Config.Uploads.Dir}
	e.acme = e.token(t, testkit.Partner, testkit.Password)
	e.globex = e.token(t, testkit.OtherPartner, testkit.OtherPassword)
	e.legacyAcmeTok = in.Token(t, testkit.Partner, testkit.Password)
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
	return testkit.V1Token(t, e.in, user, pass)
}

func (e *v1Env) post(t testing.TB, path, tok string, body []byte, extra ...string) testkit.Reply {
	t.Helper()
	return testkit.Call(t, http.MethodPost, e.in.URL+path, testkit.V1Header(tok, extra...), body)
}

func (e *v1Env) get(t testing.TB, path, tok string) testkit.Reply {
	t.Helper()
	return testkit.Call(t, http.MethodGet, e.in.URL+path, map[string]string{"Authorization": "Bearer " + tok}, nil)
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
func mustProblem(t testing.TB, r testkit.Reply, status int, code string) {
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

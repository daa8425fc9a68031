package docs

import (
	"encoding/json"
	"net/http"
	"sort"
	"strings"
	"testing"

	"github.com/lender/disbursementd/test/testkit"
	wire "github.com/lender/disbursementd/test/testkit/openapiwire"
)

// example is one request example of the document.
type example struct {
	name, method, path string
	body               []byte
	header             map[string]string
	token              string // the header that carries the token, "" when none is needed
	success            int    // the operation's documented success status
}

// requestExamples lists every operation's JSON request body examples,
// with the examples of its header parameters.
func requestExamples(t *testing.T, doc *wire.Summary) []example {
	t.Helper()
	var out []example
	for _, path := range doc.Paths {
		for _, op := range path.Operations {
			// The token request's body is a form only (generators send its
			// Content-Type only so): it has no JSON examples to send.
			header := map[string]string{"Content-Type": "application/json"}
			for name, v := range op.HeaderExamples {
				header[name] = v
			}
			for name, body := range op.JSONExamples {
				out = append(out, example{name: op.OperationID + "/" + name, method: op.Method, path: path.Path,
					body: body, header: header, token: op.TokenHeader, success: successStatus(t, op)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// servesV1 tells whether the instance at base serves /v1 (the server and
// the document of issue 16 are built in parallel): a POST /v1/token that
// is not a 404. It asks through a client of its own, so the answer is not
// checked against the document.
func servesV1(t *testing.T, base string) bool {
	t.Helper()
	resp, err := (&http.Client{Transport: http.DefaultTransport}).Post(base+"/v1/token", "application/x-www-form-urlencoded", strings.NewReader("grant_type=client_credentials"))
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close()
	if resp.StatusCode == http.StatusNotFound {
		t.Log("this build does not serve /v1: its documented operations are not called")
		return false
	}
	return true
}

// isV1 tells whether a documented path is under /v1.
func isV1(path string) bool { return strings.HasPrefix(path, "/v1/") }

// successStatus is the first 2xx status an operation documents: the
// answer to a first call (createReport documents its 201 before the 200
// of a replay).
func successStatus(t *testing.T, op wire.Operation) int {
	t.Helper()
	if op.Success == 0 {
		t.Fatalf("%s documents no success", op.OperationID)
	}
	return op.Success
}

// TestOpenAPIExamples sends the document's own request examples to a
// running instance, as a partner copying them would, and gets each
// operation's documented success. The credentials example names the user
// that the other examples run as.
func TestOpenAPIExamples(t *testing.T) {
	t.Parallel()
	examples := requestExamples(t, testkit.OpenAPISummary(t))
	var creds struct{ User, Password string }
	for _, ex := range examples {
		if ex.name == "exchangeToken/example" {
			if err := json.Unmarshal(ex.body, &creds); err != nil {
				t.Fatal(err)
			}
		}
	}
	if creds.User == "" || len(examples) < 3 {
		t.Fatalf("the document should have a credentials example and at least 3 request examples, has %d", len(examples))
	}
	in := testkit.MustStart(t)
	in.AddUser(t, creds.User, "900123456-8", creds.Password)
	tok := in.Token(t, creds.User, creds.Password)
	v1 := servesV1(t, in.URL)
	for _, ex := range examples {
		if isV1(ex.path) && !v1 {
			continue
		}
		t.Run(ex.name, func(t *testing.T) {
			h := map[string]string{}
			for k, v := range ex.header {
				h[k] = v
			}
			switch ex.token {
			case "Authentication-Type":
				h[ex.token] = "bearer " + tok
			case "Authorization":
				h[ex.token] = "Bearer " + tok
			}
			r := testkit.Call(t, ex.method, in.URL+ex.path, h, ex.body)
			if r.Status != ex.success {
				t.Fatalf("%s %s: %d %s, the document promises %d", ex.method, ex.path, r.Status, r.Raw, ex.success)
			}
		})
	}
}

// TestOpenAPIEveryPath calls every documented operation that needs no
// body and no token, a method each path does not serve, and a path that
// does not exist, so that the answers watch checks against the document
// cover every path: the documented success, 405 with a true Allow, 404,
// and the preflight, on a path and off one.
func TestOpenAPIEveryPath(t *testing.T) {
	t.Parallel()
	doc := testkit.OpenAPISummary(t)
	in := testkit.MustStart(t)
	v1 := servesV1(t, in.URL)
	for _, path := range doc.Paths {
		if isV1(path.Path) && !v1 {
			continue
		}
		for _, op := range path.Operations {
			if op.HasBody || op.TokenHeader != "" {
				continue // TestOpenAPIExamples and the /v1 tests call these
			}
			if r := testkit.Call(t, op.Method, in.URL+path.Path, nil, nil); r.Status != successStatus(t, op) {
				t.Errorf("%s %s: %d, the document promises %d", op.Method, path.Path, r.Status, successStatus(t, op))
			}
		}
		if r := testkit.Call(t, http.MethodPatch, in.URL+path.Path, nil, nil); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != path.Allow {
			t.Errorf("PATCH %s: %d Allow %q, want 405 Allow %q", path.Path, r.Status, r.Header.Get("Allow"), path.Allow)
		}
	}
	if r := testkit.Call(t, http.MethodGet, in.URL+"/no/such/path", nil, nil); r.Status != http.StatusNotFound {
		t.Errorf("GET of an unknown path: %d, want 404", r.Status)
	}
	preflights := []string{"/no/such/path", "/api/partner_api.php"}
	if v1 {
		preflights = append(preflights, "/v1/reports")
	}
	for _, path := range preflights {
		if r := testkit.Call(t, http.MethodOptions, in.URL+path, nil, nil); r.Status != http.StatusNoContent {
			t.Errorf("OPTIONS %s: %d, want 204", path, r.Status)
		}
	}
}

// TestOpenAPIDocument checks the document against the OpenAPI 3.1 schema
// in Go, so that a broken document fails even where the linters of
// test/openapi cannot run.
func TestOpenAPIDocument(t *testing.T) {
	for _, p := range testkit.OpenAPIDocumentProblems(t) {
		t.Error(p)
	}
}

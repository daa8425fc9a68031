package docs

import (
	"encoding/json"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	"github.com/lender/disbursementd/test/testkit"
)

// mustOpenAPIModel parses the served document.
func mustOpenAPIModel(t *testing.T) *v3.Document {
	t.Helper()
	doc, err := libopenapi.NewDocument(app.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	m, err := doc.BuildV3Model()
	if err != nil {
		t.Fatal(err)
	}
	return &m.Model
}

// example is one request example of the document.
type example struct {
	name, method, path string
	body               []byte
	header             map[string]string
	token              string // the header that carries the token, "" when none is needed
	success            int    // the operation's documented success status
}

// requestExamples lists every operation's request body examples, with the
// examples of its header parameters.
func requestExamples(t *testing.T, doc *v3.Document) []example {
	t.Helper()
	var out []example
	for path, item := range doc.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			if op.RequestBody == nil {
				continue
			}
			// The token request's body is a form only (generators send its
			// Content-Type only so); its example is not a JSON body to send.
			media := op.RequestBody.Content.GetOrZero("application/json")
			if media == nil {
				continue
			}
			bodies := map[string]any{}
			if media.Example != nil {
				var v any
				if err := media.Example.Decode(&v); err != nil {
					t.Fatal(err)
				}
				bodies["example"] = v
			}
			for name, ex := range media.Examples.FromOldest() {
				var v any
				if err := ex.Value.Decode(&v); err != nil {
					t.Fatal(err)
				}
				bodies[name] = v
			}
			header := map[string]string{"Content-Type": "application/json"}
			for _, p := range op.Parameters {
				if p.In == "header" && p.Example != nil {
					header[p.Name] = p.Example.Value
				}
			}
			for name, v := range bodies {
				out = append(out, example{name: op.OperationId + "/" + name, method: strings.ToUpper(method), path: path,
					body: testkit.MustJSON(v), header: header, token: tokenHeader(op), success: successStatus(t, op)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// tokenHeader is the header an operation reads its token from, by its
// security: none when one requirement is empty (the token request's), the
// legacy header for partnerToken, Authorization for the /v1 schemes.
func tokenHeader(op *v3.Operation) string {
	header := ""
	for _, req := range op.Security {
		if req.ContainsEmptyRequirement || req.Requirements == nil || req.Requirements.Len() == 0 {
			return ""
		}
		for name := range req.Requirements.KeysFromOldest() {
			if name == "partnerToken" {
				header = "Authentication-Type"
			} else {
				header = "Authorization"
			}
		}
	}
	return header
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
func successStatus(t *testing.T, op *v3.Operation) int {
	t.Helper()
	for code := range op.Responses.Codes.KeysFromOldest() {
		if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 300 {
			return n
		}
	}
	t.Fatalf("%s documents no success", op.OperationId)
	return 0
}

// TestOpenAPIExamples sends the document's own request examples to a
// running instance, as a partner copying them would, and gets each
// operation's documented success. The credentials example names the user
// that the other examples run as.
func TestOpenAPIExamples(t *testing.T) {
	t.Parallel()
	doc := mustOpenAPIModel(t)
	examples := requestExamples(t, doc)
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
	doc := mustOpenAPIModel(t)
	in := testkit.MustStart(t)
	v1 := servesV1(t, in.URL)
	for path, item := range doc.Paths.PathItems.FromOldest() {
		if isV1(path) && !v1 {
			continue
		}
		for method, op := range item.GetOperations().FromOldest() {
			if op.RequestBody != nil || tokenHeader(op) != "" {
				continue // TestOpenAPIExamples and the /v1 tests call these
			}
			m := strings.ToUpper(method)
			if r := testkit.Call(t, m, in.URL+path, nil, nil); r.Status != successStatus(t, op) {
				t.Errorf("%s %s: %d, the document promises %d", m, path, r.Status, successStatus(t, op))
			}
		}
		if r := testkit.Call(t, http.MethodPatch, in.URL+path, nil, nil); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != testkit.DocumentedMethods(item) {
			t.Errorf("PATCH %s: %d Allow %q, want 405 Allow %q", path, r.Status, r.Header.Get("Allow"), testkit.DocumentedMethods(item))
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
	doc, err := libopenapi.NewDocument(app.OpenAPI())
	if err != nil {
		t.Fatal(err)
	}
	v, errs := validator.NewValidator(doc)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		for _, p := range testkit.Describe(verrs) {
			t.Error(p.Text)
		}
	}
}

package test

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
	secured            bool
	success            int // the operation's documented success status
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
			media := op.RequestBody.Content.GetOrZero("application/json")
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
					body: mustJSON(v), header: header, secured: op.Security == nil, success: successStatus(t, op)})
			}
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}

// successStatus is the lowest 2xx status an operation documents.
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
	in := mustStart(t)
	in.addUser(t, creds.User, "900123456-8", creds.Password)
	tok := in.token(t, creds.User, creds.Password)
	for _, ex := range examples {
		t.Run(ex.name, func(t *testing.T) {
			h := map[string]string{}
			for k, v := range ex.header {
				h[k] = v
			}
			if ex.secured {
				h["Authentication-Type"] = "bearer " + tok
			}
			r := call(t, ex.method, in.URL+ex.path, h, ex.body)
			if r.Status != ex.success {
				t.Fatalf("%s %s: %d %s, the document promises %d", ex.method, ex.path, r.Status, r.Raw, ex.success)
			}
		})
	}
}

// TestOpenAPIEveryPath calls every documented operation that needs no
// body, a method each path does not serve, and a path that does not
// exist, so that the answers TestMain checks against the document cover
// every path: the documented success, 405 with a true Allow, 404, and the
// preflight.
func TestOpenAPIEveryPath(t *testing.T) {
	doc := mustOpenAPIModel(t)
	in := mustStart(t)
	for path, item := range doc.Paths.PathItems.FromOldest() {
		for method, op := range item.GetOperations().FromOldest() {
			if op.RequestBody != nil {
				continue // TestOpenAPIExamples sends these
			}
			m := strings.ToUpper(method)
			if r := call(t, m, in.URL+path, nil, nil); r.Status != successStatus(t, op) {
				t.Errorf("%s %s: %d, the document promises %d", m, path, r.Status, successStatus(t, op))
			}
		}
		if r := call(t, http.MethodPatch, in.URL+path, nil, nil); r.Status != http.StatusMethodNotAllowed || r.Header.Get("Allow") != documentedMethods(item) {
			t.Errorf("PATCH %s: %d Allow %q, want 405 Allow %q", path, r.Status, r.Header.Get("Allow"), documentedMethods(item))
		}
	}
	if r := call(t, http.MethodGet, in.URL+"/no/such/path", nil, nil); r.Status != http.StatusNotFound {
		t.Errorf("GET of an unknown path: %d, want 404", r.Status)
	}
	if r := call(t, http.MethodOptions, in.URL+"/no/such/path", nil, nil); r.Status != http.StatusNoContent {
		t.Errorf("OPTIONS of an unknown path: %d, want 204", r.Status)
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
		for _, p := range describe(verrs) {
			t.Error(p.text)
		}
	}
}

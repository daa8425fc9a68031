package testkit

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"
	"sync"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	"github.com/pb33f/libopenapi-validator/responses"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
)

// framingHeaders are the only response headers the document need not
// name: they describe the message, not the answer.
var framingHeaders = []string{"content-type", "content-length", "date", "connection", "transfer-encoding"}

// openAPIChecker validates recorded exchanges against the served document
// with libopenapi-validator.
type openAPIChecker struct {
	model     *v3.Document
	answers   validator.Validator // strict: every header and member sent must be documented
	headers   validator.Validator // the same, for answers whose body the test did not read
	requests  validator.Validator
	schemas   schema_validation.SchemaValidator
	strictOpt []config.Option
}

func newOpenAPIChecker(spec []byte) (*openAPIChecker, error) {
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml does not parse: %w", err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml has no OpenAPI 3 model: %w", err)
	}
	strict := []config.Option{config.WithStrictMode(), config.WithStrictIgnoredHeaders(framingHeaders...)}
	return &openAPIChecker{
		model:     &model.Model,
		answers:   validator.NewValidatorFromV3Model(&model.Model, strict...),
		headers:   validator.NewValidatorFromV3Model(&model.Model, append(strict, config.WithoutResponseBodyValidation())...),
		requests:  validator.NewValidatorFromV3Model(&model.Model),
		schemas:   schema_validation.NewSchemaValidator(),
		strictOpt: strict,
	}, nil
}

// openAPIViolations checks exchanges: each answer against the operation
// and status the document gives it (status, every header, body schema, no
// undocumented header or member), answers to no operation against
// components.responses (404 NotFound, 405 MethodNotAllowed with a true
// Allow, OPTIONS Preflight), and each request that succeeded against its
// operation (parameters, token scheme, body).
func openAPIViolations(exchanges []*recordedExchange) []string {
	c, err := servedChecker()
	if err != nil {
		return []string{err.Error()}
	}
	seen := map[string]int{}
	var out []string
	for _, ex := range exchanges {
		_, problems := c.check(ex)
		u, _ := url.Parse(ex.url)
		for _, p := range problems {
			// One line per kind of problem, with its first instance.
			key := fmt.Sprintf("%s %s %d: %s", ex.method, u.Path, ex.status, p.kind)
			if seen[key]++; seen[key] == 1 {
				out = append(out, fmt.Sprintf("%s %s %d: %s", ex.method, u.Path, ex.status, p.Text))
			}
		}
	}
	return out
}

// CheckAnswer checks one exchange the recording client did not see (an
// answer read from a raw connection) as watch checks the others, and
// returns what the document does not describe.
func CheckAnswer(method, url string, reqHeader http.Header, status int, header http.Header, body []byte) []string {
	ex := &recordedExchange{method: method, url: url, reqHeader: reqHeader, status: status, header: header,
		body: &teeBody{src: io.NopCloser(bytes.NewReader(body))}}
	_, _ = io.ReadAll(ex.body)
	return openAPIViolations([]*recordedExchange{ex})
}

// servedChecker is the checker of the served document, built once.
var servedChecker = sync.OnceValues(func() (*openAPIChecker, error) { return newOpenAPIChecker(app.OpenAPI()) })

// Problem is one violation: kind groups its instances (it holds no value
// that varies between requests), text tells the first one.
type Problem struct{ kind, Text string }

func plain(s string) Problem { return Problem{s, s} }

// check validates one exchange; it says whether the request was checked.
func (c *openAPIChecker) check(ex *recordedExchange) (bool, []Problem) {
	body, whole := ex.body.bytes()
	req, err := http.NewRequest(ex.method, ex.url, nil)
	if err != nil {
		return false, []Problem{plain(err.Error())}
	}
	req.Header = ex.reqHeader.Clone()
	resp := &http.Response{StatusCode: ex.status, Header: ex.header.Clone(), Request: req, Body: http.NoBody}
	if whole && len(body) > 0 {
		resp.Body = io.NopCloser(bytes.NewReader(body))
	}
	u, _ := url.Parse(ex.url)
	// The path item the request names: a literal path, or a template
	// ({id}), preferring one that has the request's method, as the
	// validator itself resolves it; but a literal path always names
	// itself.
	item, _, _ := paths.FindPath(req, c.model, nil)
	if literal, ok := c.model.Paths.PathItems.Get(u.Path); ok {
		// A literal path is that route, whatever its methods: GET
		// /v1/reports/validate is its 405, not a look-up of report
		// "validate" (contract §10).
		item = literal
	}
	switch {
	case ex.method == http.MethodOptions:
		// CORS answers every preflight before routing; the document
		// describes it once, in components.responses.
		return false, c.checkComponent(req, resp, preflightResponse(u.Path), http.StatusNoContent)
	case item == nil:
		return false, c.checkComponent(req, resp, v1Response(u.Path, "NotFound"), http.StatusNotFound)
	case operation(item, ex.method) == nil:
		problems := c.checkComponent(req, resp, v1Response(u.Path, "MethodNotAllowed"), http.StatusMethodNotAllowed)
		if want := DocumentedMethods(item); ex.header.Get("Allow") != want {
			problems = append(problems, plain(fmt.Sprintf("Allow: %q, the document has %q", ex.header.Get("Allow"), want)))
		}
		return false, problems
	}
	var problems []Problem
	answers := c.answers
	if !whole {
		answers = c.headers
	}
	if ok, errs := answers.ValidateHttpResponse(req, resp); !ok {
		problems = append(problems, Describe(errs)...)
	}
	if ex.status < 200 || ex.status > 299 {
		return false, problems
	}
	// The service accepted this request, so the document must too.
	reqBody, whole := ex.reqBody.bytes()
	if !whole {
		return false, problems
	}
	// The token request's legacy JSON body is described in the operation's
	// prose, not as a second body type: given two, orval sent neither's
	// Content-Type (issue 24). The form is the body the document checks.
	if mt, _, _ := mime.ParseMediaType(ex.reqHeader.Get("Content-Type")); ex.method == http.MethodPost && u.Path == "/v1/token" && mt == "application/json" {
		return true, problems
	}
	if spelling, ok := reportSpelling[ex.method+" "+u.Path]; ok {
		reqBody, err = documentedSpelling(reqBody, spelling)
		if err != nil {
			return false, append(problems, plain("request: "+err.Error()))
		}
	}
	checkReq, _ := http.NewRequest(ex.method, ex.url, bytes.NewReader(reqBody))
	checkReq.Header = ex.reqHeader.Clone()
	if ok, errs := c.requests.ValidateHttpRequestSync(checkReq); !ok {
		for _, d := range Describe(errs) {
			problems = append(problems, Problem{"request: " + d.kind, "request: " + d.Text})
		}
	}
	return true, problems
}

// reportSpelling names the operations that take a report, and whether
// their schema names the file under its internal name too.
var reportSpelling = map[string]bool{
	"POST /api/partner_api.php": true,
	"POST /v1/reports":          false,
	"POST /v1/reports/validate": false,
}

// preflightResponse is the components.responses entry that describes the
// preflight of path: /v1 allows and exposes its own headers.
func preflightResponse(path string) string { return v1Response(path, "Preflight") }

// v1Response is the components.responses entry name for an answer that
// no operation describes: under /v1 its V1 twin (problem details, the
// /v1 CORS headers).
func v1Response(path, name string) string {
	if path == "/v1" || strings.HasPrefix(path, "/v1/") {
		return name + "V1"
	}
	return name
}

// checkComponent validates an answer that no operation describes against
// one of components.responses: its status, headers and body schema.
func (c *openAPIChecker) checkComponent(req *http.Request, resp *http.Response, name string, status int) []Problem {
	if resp.StatusCode != status {
		return []Problem{plain(fmt.Sprintf("no operation documents this, and it is not the %d of components.responses.%s", status, name))}
	}
	r := c.model.Components.Responses.GetOrZero(name)
	if r == nil {
		return []Problem{plain("components.responses." + name + " is missing")}
	}
	var problems []Problem
	if ok, errs := responses.ValidateResponseHeaders(req, resp, r.Headers, req.URL.Path, fmt.Sprint(status), c.strictOpt...); !ok {
		problems = append(problems, Describe(errs)...)
	}
	if r.Content == nil || req.Method == http.MethodHead {
		return problems
	}
	for mediaType, media := range r.Content.FromOldest() {
		if !strings.HasPrefix(resp.Header.Get("Content-Type"), mediaType) {
			problems = append(problems, plain("Content-Type "+resp.Header.Get("Content-Type")+", want "+mediaType))
		}
		body, _ := io.ReadAll(resp.Body)
		if ok, errs := c.schemas.ValidateSchemaBytes(media.Schema.Schema(), body); !ok {
			problems = append(problems, Describe(errs)...)
		}
	}
	return problems
}

// operation returns item's operation for method, or nil.
func operation(item *v3.PathItem, method string) *v3.Operation {
	return item.GetOperations().GetOrZero(strings.ToLower(method))
}

// DocumentedMethods is what a 405's Allow must say for a path: the
// methods the document gives it and OPTIONS (the preflight every path
// answers), sorted.
func DocumentedMethods(item *v3.PathItem) string {
	methods := []string{http.MethodOptions}
	for m := range item.GetOperations().KeysFromOldest() {
		methods = append(methods, strings.ToUpper(m))
	}
	sort.Strings(methods)
	return strings.Join(methods, ", ")
}

// Describe renders validation errors, one problem each, with the schema
// failures that explain them.
func Describe(errs []*verrors.ValidationError) []Problem {
	var out []Problem
	for _, e := range errs {
		kind, text := e.Message, e.Message
		if e.Reason != "" && e.Reason != e.Message {
			text += ": " + e.Reason
		}
		for _, s := range e.SchemaValidationErrors {
			kind += " " + s.FieldPath + " " + s.KeywordLocation
			text += fmt.Sprintf(" [%s %s]", s.FieldPath, s.Reason)
		}
		out = append(out, Problem{kind, text})
	}
	return out
}

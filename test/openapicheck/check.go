package main

import (
	"bytes"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"sort"
	"strings"

	"github.com/pb33f/libopenapi"
	validator "github.com/pb33f/libopenapi-validator"
	"github.com/pb33f/libopenapi-validator/config"
	verrors "github.com/pb33f/libopenapi-validator/errors"
	"github.com/pb33f/libopenapi-validator/paths"
	"github.com/pb33f/libopenapi-validator/responses"
	"github.com/pb33f/libopenapi-validator/schema_validation"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	wire "github.com/lender/disbursementd/test/testkit/openapiwire"
)

// framingHeaders are the only response headers the document need not
// name: they describe the message, not the answer.
var framingHeaders = []string{"content-type", "content-length", "date", "connection", "transfer-encoding"}

// checker validates recorded exchanges against the served document with
// libopenapi-validator.
type checker struct {
	doc       libopenapi.Document
	model     *v3.Document
	answers   validator.Validator // strict: every header and member sent must be documented
	headers   validator.Validator // the same, for answers whose body the test did not read
	requests  validator.Validator
	schemas   schema_validation.SchemaValidator
	strictOpt []config.Option
}

func newChecker(spec []byte) (*checker, error) {
	doc, err := libopenapi.NewDocument(spec)
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml does not parse: %w", err)
	}
	model, err := doc.BuildV3Model()
	if err != nil {
		return nil, fmt.Errorf("openapi.yaml has no OpenAPI 3 model: %w", err)
	}
	strict := []config.Option{config.WithStrictMode(), config.WithStrictIgnoredHeaders(framingHeaders...)}
	return &checker{
		doc:       doc,
		model:     &model.Model,
		answers:   validator.NewValidatorFromV3Model(&model.Model, strict...),
		headers:   validator.NewValidatorFromV3Model(&model.Model, append(strict, config.WithoutResponseBodyValidation())...),
		requests:  validator.NewValidatorFromV3Model(&model.Model),
		schemas:   schema_validation.NewSchemaValidator(),
		strictOpt: strict,
	}, nil
}

func plain(s string) wire.Problem { return wire.Problem{Kind: s, Text: s} }

// check validates one exchange: the answer against the operation and
// status the document gives it (status, every header, body schema, no
// undocumented header or member), an answer to no operation against
// components.responses (404 NotFound, 405 MethodNotAllowed with a true
// Allow, OPTIONS Preflight), and a request that succeeded against its
// operation (parameters, token scheme, body).
func (c *checker) check(ex wire.Exchange) []wire.Problem {
	req, err := http.NewRequest(ex.Method, ex.URL, nil)
	if err != nil {
		return []wire.Problem{plain(err.Error())}
	}
	req.Header = ex.ReqHeader.Clone()
	resp := &http.Response{StatusCode: ex.Status, Header: ex.Header.Clone(), Request: req, Body: http.NoBody}
	if ex.BodyWhole && len(ex.Body) > 0 {
		resp.Body = io.NopCloser(bytes.NewReader(ex.Body))
	}
	u, _ := url.Parse(ex.URL)
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
	case ex.Method == http.MethodOptions:
		// CORS answers every preflight before routing; the document
		// describes it once, in components.responses.
		return c.checkComponent(req, resp, v1Response(u.Path, "Preflight"), http.StatusNoContent)
	case item == nil:
		return c.checkComponent(req, resp, v1Response(u.Path, "NotFound"), http.StatusNotFound)
	case operation(item, ex.Method) == nil:
		problems := c.checkComponent(req, resp, v1Response(u.Path, "MethodNotAllowed"), http.StatusMethodNotAllowed)
		if want := documentedMethods(item); ex.Header.Get("Allow") != want {
			problems = append(problems, plain(fmt.Sprintf("Allow: %q, the document has %q", ex.Header.Get("Allow"), want)))
		}
		return problems
	}
	var problems []wire.Problem
	answers := c.answers
	if !ex.BodyWhole {
		answers = c.headers
	}
	if ok, errs := answers.ValidateHttpResponse(req, resp); !ok {
		problems = append(problems, describe(errs)...)
	}
	if ex.Status < 200 || ex.Status > 299 || !ex.ReqBodyWhole {
		return problems
	}
	// The service accepted this request, so the document must too.
	reqBody := ex.ReqBody
	// The token request's legacy JSON body is described in the operation's
	// prose, not as a second body type: given two, orval sent neither's
	// Content-Type (issue 24). The form is the body the document checks.
	if mt, _, _ := mime.ParseMediaType(ex.ReqHeader.Get("Content-Type")); ex.Method == http.MethodPost && u.Path == "/v1/token" && mt == "application/json" {
		return problems
	}
	if spelling, ok := reportSpelling[ex.Method+" "+u.Path]; ok {
		reqBody, err = documentedSpelling(reqBody, spelling)
		if err != nil {
			return append(problems, plain("request: "+err.Error()))
		}
	}
	checkReq, _ := http.NewRequest(ex.Method, ex.URL, bytes.NewReader(reqBody))
	checkReq.Header = ex.ReqHeader.Clone()
	if ok, errs := c.requests.ValidateHttpRequestSync(checkReq); !ok {
		for _, d := range describe(errs) {
			problems = append(problems, wire.Problem{Kind: "request: " + d.Kind, Text: "request: " + d.Text})
		}
	}
	return problems
}

// reportSpelling names the operations that take a report, and whether
// their schema names the file under its internal name too.
var reportSpelling = map[string]bool{
	"POST /api/partner_api.php": true,
	"POST /v1/reports":          false,
	"POST /v1/reports/validate": false,
}

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
func (c *checker) checkComponent(req *http.Request, resp *http.Response, name string, status int) []wire.Problem {
	if resp.StatusCode != status {
		return []wire.Problem{plain(fmt.Sprintf("no operation documents this, and it is not the %d of components.responses.%s", status, name))}
	}
	r := c.model.Components.Responses.GetOrZero(name)
	if r == nil {
		return []wire.Problem{plain("components.responses." + name + " is missing")}
	}
	var problems []wire.Problem
	if ok, errs := responses.ValidateResponseHeaders(req, resp, r.Headers, req.URL.Path, fmt.Sprint(status), c.strictOpt...); !ok {
		problems = append(problems, describe(errs)...)
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
			problems = append(problems, describe(errs)...)
		}
	}
	return problems
}

// operation returns item's operation for method, or nil.
func operation(item *v3.PathItem, method string) *v3.Operation {
	return item.GetOperations().GetOrZero(strings.ToLower(method))
}

// documentedMethods is what a 405's Allow must say for a path: the
// methods the document gives it and OPTIONS (the preflight every path
// answers), sorted.
func documentedMethods(item *v3.PathItem) string {
	methods := []string{http.MethodOptions}
	for m := range item.GetOperations().KeysFromOldest() {
		methods = append(methods, strings.ToUpper(m))
	}
	sort.Strings(methods)
	return strings.Join(methods, ", ")
}

// describe renders validation errors, one problem each, with the schema
// failures that explain them.
func describe(errs []*verrors.ValidationError) []wire.Problem {
	var out []wire.Problem
	for _, e := range errs {
		kind, text := e.Message, e.Message
		if e.Reason != "" && e.Reason != e.Message {
			text += ": " + e.Reason
		}
		for _, s := range e.SchemaValidationErrors {
			kind += " " + s.FieldPath + " " + s.KeywordLocation
			text += fmt.Sprintf(" [%s %s]", s.FieldPath, s.Reason)
		}
		out = append(out, wire.Problem{Kind: kind, Text: text})
	}
	return out
}

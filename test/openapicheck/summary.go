package main

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"

	validator "github.com/pb33f/libopenapi-validator"
	v3 "github.com/pb33f/libopenapi/datamodel/high/v3"

	wire "github.com/lender/disbursementd/test/testkit/openapiwire"
)

// summary describes the document's paths and operations in its order,
// with what test/docs sends of them: request examples, token headers and
// documented successes.
func (c *checker) summary() (*wire.Summary, error) {
	var s wire.Summary
	for path, item := range c.model.Paths.PathItems.FromOldest() {
		p := wire.Path{Path: path, Allow: documentedMethods(item)}
		for method, op := range item.GetOperations().FromOldest() {
			o := wire.Operation{Method: strings.ToUpper(method), OperationID: op.OperationId, HasBody: op.RequestBody != nil,
				TokenHeader: tokenHeader(op), Success: successStatus(op)}
			if op.RequestBody != nil {
				examples, err := jsonExamples(op)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", op.OperationId, err)
				}
				o.JSONExamples = examples
			}
			for _, prm := range op.Parameters {
				if prm.In == "header" && prm.Example != nil {
					if o.HeaderExamples == nil {
						o.HeaderExamples = map[string]string{}
					}
					o.HeaderExamples[prm.Name] = prm.Example.Value
				}
			}
			p.Operations = append(p.Operations, o)
		}
		s.Paths = append(s.Paths, p)
	}
	return &s, nil
}

// jsonExamples are an operation's application/json request examples as
// JSON, by name ("example" for the single one); nil when it takes no JSON
// body (the token request's is a form).
func jsonExamples(op *v3.Operation) (map[string]json.RawMessage, error) {
	media := op.RequestBody.Content.GetOrZero("application/json")
	if media == nil {
		return nil, nil
	}
	out := map[string]json.RawMessage{}
	add := func(name string, decode func(any) error) error {
		var v any
		if err := decode(&v); err != nil {
			return fmt.Errorf("example %s: %w", name, err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			return fmt.Errorf("example %s: %w", name, err)
		}
		out[name] = b
		return nil
	}
	if media.Example != nil {
		if err := add("example", media.Example.Decode); err != nil {
			return nil, err
		}
	}
	for name, ex := range media.Examples.FromOldest() {
		if err := add(name, ex.Value.Decode); err != nil {
			return nil, err
		}
	}
	return out, nil
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

// successStatus is the first 2xx status an operation documents (the
// answer to a first call: createReport documents its 201 before the 200
// of a replay), 0 when it documents none.
func successStatus(op *v3.Operation) int {
	for code := range op.Responses.Codes.KeysFromOldest() {
		if n, err := strconv.Atoi(code); err == nil && n >= 200 && n < 300 {
			return n
		}
	}
	return 0
}

// validate checks the document against the OpenAPI 3.1 schema.
func (c *checker) validate() ([]wire.Problem, error) {
	v, errs := validator.NewValidator(c.doc)
	if len(errs) > 0 {
		return nil, fmt.Errorf("%v", errs)
	}
	if ok, verrs := v.ValidateDocument(); !ok {
		return describe(verrs), nil
	}
	return nil, nil
}

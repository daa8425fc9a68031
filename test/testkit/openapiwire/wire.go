// Package openapiwire is what test/testkit and the OpenAPI checker
// (test/openapicheck) say to each other over the checker's standard input
// and output: one JSON Request a line, answered by one JSON Response a
// line. It imports nothing of libopenapi, so that the test binaries built
// with -race, which import testkit, do not compile it (the README's test/openapicheck).
package openapiwire

import (
	"encoding/json"
	"net/http"
)

// Request is one question to the checker. Op "load" gives it the served
// document (Spec) and must come first; "check" validates Exchanges;
// "summary" describes the document's operations; "validate" checks the
// document against the OpenAPI 3.1 schema.
type Request struct {
	Seq       int        `json:"seq"` // numbers the question; its answer carries the same
	Op        string     `json:"op"`
	Spec      []byte     `json:"spec,omitempty"`
	Exchanges []Exchange `json:"exchanges,omitempty"`
}

// Response answers one Request: Error when it could not be answered;
// for "check" one list of Problems an exchange, in order; for "validate"
// one list; for "summary" the Summary.
type Response struct {
	Seq      int         `json:"seq"`
	Error    string      `json:"error,omitempty"`
	Problems [][]Problem `json:"problems,omitempty"`
	Summary  *Summary    `json:"summary,omitempty"`
}

// Exchange is one request and its answer as the suite saw them. A body
// that was not read to its end, or was too large to keep, is not Whole
// and is not checked; a request without a body has an empty, whole one.
type Exchange struct {
	Method       string      `json:"method"`
	URL          string      `json:"url"`
	ReqHeader    http.Header `json:"reqHeader"`
	ReqBody      []byte      `json:"reqBody,omitempty"`
	ReqBodyWhole bool        `json:"reqBodyWhole"`
	Status       int         `json:"status"`
	Header       http.Header `json:"header"`
	Body         []byte      `json:"body,omitempty"`
	BodyWhole    bool        `json:"bodyWhole"`
}

// Problem is one violation: Kind groups its instances (it holds no value
// that varies between requests), Text tells the first one.
type Problem struct {
	Kind string `json:"kind"`
	Text string `json:"text"`
}

// Summary is the document's paths in its order, with what test/docs
// calls of them.
type Summary struct {
	Paths []Path `json:"paths"`
}

// Path is one documented path: Allow is what a 405 there must say (its
// methods and OPTIONS, sorted).
type Path struct {
	Path       string      `json:"path"`
	Allow      string      `json:"allow"`
	Operations []Operation `json:"operations"`
}

// Operation is one documented operation. TokenHeader is the header its
// security reads a token from ("" when it needs none); Success its first
// documented 2xx (0 when none); JSONExamples its application/json request
// body's examples by name ("example" for the single one), nil when it
// takes no JSON body; HeaderExamples its header parameters' examples.
type Operation struct {
	Method         string                     `json:"method"`
	OperationID    string                     `json:"operationId"`
	HasBody        bool                       `json:"hasBody"`
	TokenHeader    string                     `json:"tokenHeader"`
	Success        int                        `json:"success"`
	JSONExamples   map[string]json.RawMessage `json:"jsonExamples,omitempty"`
	HeaderExamples map[string]string          `json:"headerExamples,omitempty"`
}

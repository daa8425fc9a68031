// Command openapicheck validates the answers the test suite records
// against the served openapi.yaml with libopenapi-validator, for
// test/testkit, which runs it (go run) once per test binary and talks to
// it over its standard input and output (package wire). It is a program
// of its own so that the -race test binaries do not compile libopenapi:
// under the race detector, its compile was most of the suite's cold build
// (docs/performance.md), and its checks a tenth of test/e2e's CPU.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"

	wire "github.com/lender/disbursementd/test/testkit/openapiwire"
)

func main() {
	// The answers go to standard output, and nothing else may: libopenapi
	// and its validator log to os.Stdout when a document is broken, and
	// those lines would be read as answers. Everything else that writes
	// to os.Stdout writes to standard error.
	answers := os.Stdout
	os.Stdout = os.Stderr
	if err := serve(os.Stdin, answers); err != nil {
		fmt.Fprintln(os.Stderr, "openapicheck:", err)
		os.Exit(1)
	}
}

// serve answers requests from in, one JSON line each, until in ends.
func serve(in io.Reader, out io.Writer) error {
	dec := json.NewDecoder(bufio.NewReaderSize(in, 1<<20))
	w := bufio.NewWriter(out)
	enc := json.NewEncoder(w)
	var s server
	for {
		var req wire.Request
		if err := dec.Decode(&req); err == io.EOF {
			return nil
		} else if err != nil {
			return err
		}
		resp := s.answer(req)
		resp.Seq = req.Seq
		if err := enc.Encode(resp); err != nil {
			return err
		}
		if err := w.Flush(); err != nil {
			return err
		}
	}
}

// server answers requests with the checker "load" made.
type server struct{ c *checker }

// answer answers one request.
func (s *server) answer(req wire.Request) wire.Response {
	if req.Op == "load" {
		loaded, err := newChecker(req.Spec)
		if err != nil {
			return wire.Response{Error: err.Error()}
		}
		s.c = loaded
		return wire.Response{}
	}
	if s.c == nil {
		return wire.Response{Error: "no document loaded"}
	}
	switch req.Op {
	case "check":
		resp := wire.Response{Problems: make([][]wire.Problem, len(req.Exchanges))}
		for i, ex := range req.Exchanges {
			resp.Problems[i] = s.c.check(ex)
		}
		return resp
	case "summary":
		sum, err := s.c.summary()
		if err != nil {
			return wire.Response{Error: err.Error()}
		}
		return wire.Response{Summary: sum}
	case "validate":
		problems, err := s.c.validate()
		if err != nil {
			return wire.Response{Error: err.Error()}
		}
		return wire.Response{Problems: [][]wire.Problem{problems}}
	}
	return wire.Response{Error: fmt.Sprintf("unknown op %q", req.Op)}
}

package testkit

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/cmd/disbursementd/app"
	wire "github.com/lender/disbursementd/test/testkit/openapiwire"
)

// The answers are checked against the served document by test/openapicheck,
// a program and module of its own that each test binary runs once (go run,
// so built without -race: libopenapi compiled under the race detector was
// most of a cold build of the suite, and its checks under it a tenth of
// test/e2e's CPU).

// openAPIViolations checks exchanges: each answer against the operation
// and status the document gives it (status, every header, body schema, no
// undocumented header or member), answers to no operation against
// components.responses (404 NotFound, 405 MethodNotAllowed with a true
// Allow, OPTIONS Preflight), and each request that succeeded against its
// operation (parameters, token scheme, body). A checker that cannot run is
// a violation: nothing passes unchecked.
func openAPIViolations(exchanges []*recordedExchange) []string {
	if len(exchanges) == 0 {
		return nil
	}
	// A few exchanges a question: a soak's bodies, kept up to 1 MiB
	// each, are not all encoded at once.
	const chunk = 64
	problems := make([][]wire.Problem, 0, len(exchanges))
	for start := 0; start < len(exchanges); start += chunk {
		part := exchanges[start:min(start+chunk, len(exchanges))]
		sent := make([]wire.Exchange, len(part))
		for i, ex := range part {
			body, whole := ex.body.bytes()
			reqBody, reqWhole := ex.reqBody.bytes()
			sent[i] = wire.Exchange{Method: ex.method, URL: ex.url, ReqHeader: ex.reqHeader, ReqBody: reqBody, ReqBodyWhole: reqWhole,
				Status: ex.status, Header: ex.header, Body: body, BodyWhole: whole}
		}
		resp, err := askChecker(wire.Request{Op: "check", Exchanges: sent})
		if err == nil && len(resp.Problems) != len(sent) {
			err = fmt.Errorf("the OpenAPI checker answered %d of %d exchanges", len(resp.Problems), len(sent))
		}
		if err != nil {
			return []string{err.Error()}
		}
		problems = append(problems, resp.Problems...)
	}
	seen := map[string]int{}
	var out []string
	for i, ex := range exchanges {
		u, _ := url.Parse(ex.url)
		for _, p := range problems[i] {
			// One line per kind of problem, with its first instance.
			key := fmt.Sprintf("%s %s %d: %s", ex.method, u.Path, ex.status, p.Kind)
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

// OpenAPISummary is the served document's paths and operations in its
// order, with their request examples, token headers, documented successes
// and the Allow of a 405 on each path.
func OpenAPISummary(t testing.TB) *wire.Summary {
	t.Helper()
	resp, err := askChecker(wire.Request{Op: "summary"})
	if err == nil && resp.Summary == nil {
		err = fmt.Errorf("the OpenAPI checker gave no summary")
	}
	if err != nil {
		t.Fatal(err)
	}
	return resp.Summary
}

// OpenAPIDocumentProblems checks the served document against the OpenAPI
// 3.1 schema and returns what is wrong with it.
func OpenAPIDocumentProblems(t testing.TB) []string {
	t.Helper()
	resp, err := askChecker(wire.Request{Op: "validate"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, list := range resp.Problems {
		for _, p := range list {
			out = append(out, p.Text)
		}
	}
	return out
}

// checkerProcess is the running test/openapicheck, loaded with the served
// document. Questions to it take turns.
type checkerProcess struct {
	mu     sync.Mutex
	cmd    *exec.Cmd
	in     io.WriteCloser
	enc    *json.Encoder
	out    *bufio.Reader
	seq    int
	stderr *SyncBuffer
	broken error // once it fails, every question fails so
}

// startEnv is the environment the test binary started with, and goBin
// the go command on its PATH: a test's t.Setenv (HOME, PATH) must not
// send the checker's go run to another, empty build cache or another go.
var (
	startEnv     = os.Environ()
	goBin, goErr = exec.LookPath("go")
)

// runningChecker starts the checker once per test binary. It ends when
// the test binary does: its standard input then closes.
var runningChecker = sync.OnceValues(func() (*checkerProcess, error) {
	if repoRootErr != nil {
		return nil, fmt.Errorf("the OpenAPI checker: no repository root: %w", repoRootErr)
	}
	if goErr != nil {
		return nil, fmt.Errorf("the OpenAPI checker: %w", goErr)
	}
	cmd := exec.Command(goBin, "run", ".")
	cmd.Dir, cmd.Env = filepath.Join(repoRoot, "test", "openapicheck"), startEnv
	p, err := startChecker(cmd)
	if err != nil {
		return nil, err
	}
	if _, err := p.ask(wire.Request{Op: "load", Spec: app.OpenAPI()}); err != nil {
		return nil, err
	}
	return p, nil
})

// startChecker starts cmd as the checker, its standard input and output
// the questions' and answers' pipes.
func startChecker(cmd *exec.Cmd) (*checkerProcess, error) {
	cmd.WaitDelay = 5 * time.Second
	p := &checkerProcess{cmd: cmd, stderr: &SyncBuffer{}}
	cmd.Stderr = p.stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("the OpenAPI checker (go -C test/openapicheck run .) does not start: %w", err)
	}
	p.in, p.enc, p.out = in, json.NewEncoder(in), bufio.NewReaderSize(out, 1<<20)
	return p, nil
}

func askChecker(req wire.Request) (*wire.Response, error) {
	p, err := runningChecker()
	if err != nil {
		return nil, err
	}
	return p.ask(req)
}

// ask sends one question and reads its answer: one line, an answer and
// nothing else (no unknown member), carrying the question's number.
// Anything else breaks the checker for good, and ends it: answers out of
// step with their questions would let one test pass on another's.
func (p *checkerProcess) ask(req wire.Request) (*wire.Response, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.broken != nil {
		return nil, p.broken
	}
	p.seq++
	req.Seq = p.seq
	var resp wire.Response
	err := p.enc.Encode(req)
	var line []byte
	if err == nil {
		line, err = p.out.ReadBytes('\n')
	}
	if err == nil {
		dec := json.NewDecoder(bytes.NewReader(line))
		dec.DisallowUnknownFields()
		if err = dec.Decode(&resp); err == nil && resp.Seq != req.Seq {
			err = fmt.Errorf("answer %d to question %d", resp.Seq, req.Seq)
		}
		if err != nil {
			err = fmt.Errorf("%v: it wrote %.300q", err, line)
		}
	}
	if err != nil {
		// Ended and waited for, so that its standard error is all read
		// (the program go run started ends on its closed input; WaitDelay
		// bounds the wait if it does not).
		_ = p.in.Close()
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
		p.broken = fmt.Errorf("the OpenAPI checker (go -C test/openapicheck run .) failed: %v: %s", err, strings.TrimSpace(p.stderr.String()))
		return nil, p.broken
	}
	if resp.Error != "" {
		return nil, fmt.Errorf("the OpenAPI checker: %s", resp.Error)
	}
	return &resp, nil
}

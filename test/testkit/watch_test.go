package testkit

import (
	"net/http"
	"os/exec"
	"testing"

	wire "github.com/lender/disbursementd/test/testkit/openapiwire"
)

// TestLeakCheckFindsSecrets: the check watch runs finds each kind of
// secret, and passes a clean log.
func TestLeakCheckFindsSecrets(t *testing.T) {
	clean := `{"level":"INFO","msg":"report stored","user":"acme","id_number":"10******50"}` + "\n"
	if leaks := LogLeaks(clean); len(leaks) != 0 {
		t.Fatalf("a clean log: %v", leaks)
	}
	for _, secret := range []string{Password, "JVBERi0xLjQK", "1020304050", "1.020.304.050", "-----BEGIN PRIVATE KEY-----",
		"bearer eyJhbGciOiJSUzI1NiJ9", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhY21lIn0.sig"} {
		if leaks := LogLeaks(clean + `{"msg":"x","v":"` + secret + `"}` + "\n"); len(leaks) == 0 {
			t.Errorf("the leak check missed %q", secret)
		}
	}
}

// TestOpenAPICheckFindsViolations: the check watch runs passes a
// documented answer and flags an undocumented header, member and status.
func TestOpenAPICheckFindsViolations(t *testing.T) {
	answer := func(status int, header http.Header, body string) *recordedExchange {
		tb := &teeBody{src: http.NoBody, complete: true}
		tb.buf.WriteString(body)
		h := http.Header{"Content-Type": {"application/json; charset=utf-8"}, "Access-Control-Allow-Origin": {"*"},
			"Access-Control-Expose-Headers": {"X-Request-Id, Retry-After, WWW-Authenticate, Idempotent-Replayed"}, "X-Request-Id": {"0123456789abcdef0123"}}
		for k, v := range header {
			h[k] = v
		}
		return &recordedExchange{method: http.MethodGet, url: "http://127.0.0.1:1/healthz", reqHeader: http.Header{},
			status: status, header: h, body: tb}
	}
	if bad := openAPIViolations([]*recordedExchange{answer(200, nil, `{"status":"ok"}`)}); len(bad) != 0 {
		t.Fatalf("a documented answer: %v", bad)
	}
	for name, ex := range map[string]*recordedExchange{
		"undocumented header": answer(200, http.Header{"X-Debug": {"1"}}, `{"status":"ok"}`),
		"undocumented member": answer(200, nil, `{"status":"ok","extra":1}`),
		"undocumented status": answer(418, nil, `{"status":"ok"}`),
	} {
		if bad := openAPIViolations([]*recordedExchange{ex}); len(bad) == 0 {
			t.Errorf("%s: not flagged", name)
		}
	}
}

// TestOpenAPICheckerOutOfStepBreaks: a line from the checker that is not
// the answer to the question asked (a library's log line, an answer
// numbered for another question) fails that question and every later
// one, so that no test takes another's answer for its own.
func TestOpenAPICheckerOutOfStepBreaks(t *testing.T) {
	t.Parallel()
	for name, script := range map[string]string{
		"a log line":          `echo '{"level":"ERROR","msg":"broken $ref"}'; echo '{"seq":1}'; cat >/dev/null`,
		"another's answer":    `echo '{"seq":2}'; cat >/dev/null`,
		"no answer at all":    `exit 3`,
		"a line that is text": `echo 'panic: boom'; cat >/dev/null`,
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			p, err := startChecker(exec.Command("sh", "-c", script))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := p.ask(wire.Request{Op: "validate"}); err == nil {
				t.Fatal("the first question was answered")
			}
			if _, err := p.ask(wire.Request{Op: "validate"}); err == nil {
				t.Fatal("a question after a broken answer was answered")
			}
		})
	}
	// In step, the same framing is answered.
	p, err := startChecker(exec.Command("sh", "-c", `read q; echo '{"seq":1,"problems":[[{"kind":"k","text":"t"}]]}'; cat >/dev/null`))
	if err != nil {
		t.Fatal(err)
	}
	if resp, err := p.ask(wire.Request{Op: "validate"}); err != nil || len(resp.Problems) != 1 || resp.Problems[0][0].Text != "t" {
		t.Fatalf("an answer in step: %+v, %v", resp, err)
	}
}

package test

import (
	"encoding/base64"
	"fmt"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/lender/disbursementd/test/fixture"
)

// watch checks, when the test that started a service ends, what that
// service wrote to its log (no password, token, base64 content or full
// identification number: logLeaks) and every answer it gave through the
// recording client (as openapi.yaml describes it). A failure is the
// test's own and names what was wrong. base is read at the end, so a
// service started on :0 may learn its address after watch is called.
func watch(t testing.TB, base func() string, logs *syncBuffer) {
	t.Cleanup(func() {
		if leaks := logLeaks(logs.String()); len(leaks) > 0 {
			t.Errorf("the service logged secrets in this test:\n%s", strings.Join(leaks, "\n"))
		}
		if bad := openAPIViolations(takeExchanges(base())); len(bad) > 0 {
			t.Errorf("answers of this test that openapi.yaml does not describe:\n%s", strings.Join(bad, "\n"))
		}
	})
}

var jwtPattern = regexp.MustCompile(`eyJ[A-Za-z0-9_-]{10,}\.eyJ[A-Za-z0-9_-]{10,}`)

// logLeaks names the secrets found in logs, each with the line it is in.
func logLeaks(logs string) []string {
	pdfB64 := base64.StdEncoding.EncodeToString(fixture.PDF(4096))[:24]
	forbidden := map[string]string{
		"password":              password,
		"a URL's password":      urlPassword,
		"base64 of a PDF":       pdfB64,
		"base64 PDF header":     "JVBERi0",
		"identification number": "1020304050",
		"dotted identification": "1.020.304.050",
		"private key":           "PRIVATE KEY",
		"bearer header":         "bearer eyJ",
	}
	var leaks []string
	for line := range strings.Lines(logs) {
		for what, s := range forbidden {
			if strings.Contains(line, s) {
				leaks = append(leaks, fmt.Sprintf("%s (%s) in: %.300s", what, s, strings.TrimSpace(line)))
			}
		}
		if m := jwtPattern.FindString(line); m != "" {
			leaks = append(leaks, fmt.Sprintf("a JWT (%s…) in: %.300s", m[:20], strings.TrimSpace(line)))
		}
	}
	return leaks
}

// TestLeakCheckFindsSecrets: the check watch runs finds each kind of
// secret, and passes a clean log.
func TestLeakCheckFindsSecrets(t *testing.T) {
	clean := `{"level":"INFO","msg":"report stored","user":"acme","id_number":"10******50"}` + "\n"
	if leaks := logLeaks(clean); len(leaks) != 0 {
		t.Fatalf("a clean log: %v", leaks)
	}
	for _, secret := range []string{password, "JVBERi0xLjQK", "1020304050", "1.020.304.050", "-----BEGIN PRIVATE KEY-----",
		"bearer eyJhbGciOiJSUzI1NiJ9", "eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJhY21lIn0.sig"} {
		if leaks := logLeaks(clean + `{"msg":"x","v":"` + secret + `"}` + "\n"); len(leaks) == 0 {
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

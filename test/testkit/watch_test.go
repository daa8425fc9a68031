package testkit

import (
	"net/http"
	"testing"
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

package e2e

import (
	"bufio"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// A user whose name and password need RFC 6749 §2.3.1's encoding: a ':'
// in the name, and in the password a ':', a '%', a '+' and a space.
const (
	oddUser     = "ops:v1+%"
	oddPassword = "p@ss:w0rd %20 +x"
)

// v1TokenRules: POST /v1/token (contract §8, "Tokens").
func v1TokenRules(t *testing.T, e *v1Env) {
	in := e.in
	in.AddUser(t, oddUser, "900111222", oddPassword)
	works := func(t *testing.T, tok string) {
		t.Helper()
		if r := e.get(t, "/v1/reports", tok); r.Status != http.StatusOK {
			t.Fatalf("the token does not work on /v1: %d %s", r.Status, r.Raw)
		}
	}
	issued := func(t *testing.T, r testkit.Reply) string {
		t.Helper()
		tok, _ := r.Body["access_token"].(string)
		if r.Status != http.StatusOK || tok == "" || r.Body["token_type"] != "Bearer" || r.Body["expires_in"] != float64(86400) ||
			r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Pragma") != "no-cache" {
			t.Fatalf("%d %v %s; want a Bearer token for 86400 s, no-store, no-cache", r.Status, r.Header, r.Raw)
		}
		return tok
	}
	refused := func(t *testing.T, r testkit.Reply, status int, code string) {
		t.Helper()
		if r.Status != status || r.Body["error"] != code || r.Body["access_token"] != nil ||
			r.Header.Get("Cache-Control") != "no-store" || r.Header.Get("Pragma") != "no-cache" {
			t.Fatalf("%d %s; want %d %s, no-store, no-cache", r.Status, r.Raw, status, code)
		}
		if got := r.Header.Get("WWW-Authenticate"); status == http.StatusUnauthorized && got != `Basic realm="disbursementd"` {
			t.Fatalf("a 401 with WWW-Authenticate %q, want the Basic challenge", got)
		}
	}

	t.Run("token: HTTP Basic, each part form-urlencoded (RFC 6749 2.3.1)", func(t *testing.T) {
		works(t, issued(t, testkit.TokenCall(t, in, map[string]string{"Authorization": testkit.BasicAuth(oddUser, oddPassword)}, testkit.FormCT, "grant_type=client_credentials")))
		// Without the encoding, the name's ':' splits it wrongly and '+' reads as a space.
		raw := "Basic " + b64(oddUser+":"+oddPassword)
		refused(t, testkit.TokenCall(t, in, map[string]string{"Authorization": raw}, testkit.FormCT, "grant_type=client_credentials"), 401, "invalid_client")
		// The scheme word is case-insensitive.
		works(t, issued(t, testkit.TokenCall(t, in, map[string]string{"Authorization": "basic " + b64(testkit.Partner+":"+url.QueryEscape(testkit.Password))}, testkit.FormCT,
			"grant_type=client_credentials")))
	})
	t.Run("token: client_id and client_secret form fields", func(t *testing.T) {
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {oddUser}, "client_secret": {oddPassword}}
		works(t, issued(t, testkit.TokenCall(t, in, nil, testkit.FormCT+"; charset=utf-8", form.Encode())))
	})
	t.Run("token: the legacy JSON, with or without grant_type", func(t *testing.T) {
		works(t, issued(t, testkit.TokenCall(t, in, nil, "application/json", string(testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password})))))
		works(t, issued(t, testkit.TokenCall(t, in, nil, "application/json",
			string(testkit.MustJSON(map[string]string{"grant_type": "client_credentials", "user": testkit.Partner, "password": testkit.Password})))))
	})
	t.Run("token: a token from either path works on both", func(t *testing.T) {
		works(t, e.legacyAcmeTok)
		if r := in.Report(t, e.acme, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-V1TOK-1"))); r.Status != http.StatusOK {
			t.Fatalf("a /v1 token on the legacy POST: %d %s", r.Status, r.Raw)
		}
	})
	t.Run("token: wrong or unknown credentials are 401 invalid_client with a Basic challenge", func(t *testing.T) {
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {testkit.Partner}, "client_secret": {"wrong"}}
		wrong := testkit.TokenCall(t, in, nil, testkit.FormCT, form.Encode())
		refused(t, wrong, 401, "invalid_client")
		form.Set("client_id", "nobody")
		unknown := testkit.TokenCall(t, in, nil, testkit.FormCT, form.Encode())
		refused(t, unknown, 401, "invalid_client")
		if string(wrong.Raw) != string(unknown.Raw) {
			t.Fatalf("a wrong password %s and an unknown user %s answer differently", wrong.Raw, unknown.Raw)
		}
		refused(t, testkit.TokenCall(t, in, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, "wrong")}, testkit.FormCT, "grant_type=client_credentials"), 401, "invalid_client")
		refused(t, testkit.TokenCall(t, in, nil, "application/json", `{"user":"acme","password":"wrong"}`), 401, "invalid_client")
		refused(t, testkit.TokenCall(t, in, nil, testkit.FormCT, "grant_type=client_credentials"), 401, "invalid_client")
		refused(t, testkit.TokenCall(t, in, map[string]string{"Authorization": "Basic !!!"}, testkit.FormCT, "grant_type=client_credentials"), 401, "invalid_client")
	})
	t.Run("token: different credentials in Basic and in the body are invalid_request", func(t *testing.T) {
		// Contract §10 accepts the same pair in both (v1CredentialRules).
		form := url.Values{"grant_type": {"client_credentials"}, "client_id": {testkit.Partner}, "client_secret": {testkit.Password}}
		refused(t, testkit.TokenCall(t, in, map[string]string{"Authorization": testkit.BasicAuth(testkit.OtherPartner, testkit.OtherPassword)}, testkit.FormCT, form.Encode()), 400, "invalid_request")
		refused(t, testkit.TokenCall(t, in, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, "wrong")}, "application/json",
			string(testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))), 400, "invalid_request")
	})
	t.Run("token: another grant type is unsupported_grant_type", func(t *testing.T) {
		h := map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)}
		refused(t, testkit.TokenCall(t, in, h, testkit.FormCT, "grant_type=password"), 400, "unsupported_grant_type")
		refused(t, testkit.TokenCall(t, in, nil, "application/json", string(testkit.MustJSON(map[string]string{"grant_type": "password", "user": testkit.Partner, "password": testkit.Password}))),
			400, "unsupported_grant_type")
	})
	t.Run("token: a missing or repeated parameter is invalid_request", func(t *testing.T) {
		h := map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)}
		for name, body := range map[string]string{
			"no grant_type":       "",
			"an empty grant_type": "grant_type=",
			"grant_type twice":    "grant_type=client_credentials&grant_type=client_credentials",
		} {
			t.Run(name, func(t *testing.T) {
				refused(t, testkit.TokenCall(t, in, h, testkit.FormCT, body), 400, "invalid_request")
			})
		}
		refused(t, testkit.TokenCall(t, in, nil, testkit.FormCT, "grant_type=client_credentials&client_id=acme"), 400, "invalid_request")
		refused(t, testkit.TokenCall(t, in, nil, testkit.FormCT, "grant_type=client_credentials&client_secret=x"), 400, "invalid_request")
		refused(t, testkit.TokenCall(t, in, nil, testkit.FormCT, "grant_type=client_credentials&client_id=acme&client_id=acme&client_secret=x"), 400, "invalid_request")
		refused(t, testkit.TokenCall(t, in, nil, "application/json", `{"user":"acme"}`), 400, "invalid_request")
		refused(t, testkit.TokenCall(t, in, nil, "application/json", `{"user":"acme","user":"acme","password":"x"}`), 400, "invalid_request")
		refused(t, testkit.TokenCall(t, in, nil, "application/json", `{"user":"acme","password":7}`), 400, "invalid_request")
		refused(t, testkit.TokenCall(t, in, nil, "application/json", `[1]`), 400, "invalid_request")
		refused(t, testkit.TokenCall(t, in, nil, testkit.FormCT, "grant_type=client_credentials&pad="+strings.Repeat("x", 17<<10)), 400, "invalid_request")
	})
	t.Run("token: an unsupported content type is invalid_request, checked first", func(t *testing.T) {
		for _, ct := range []string{"text/plain", "multipart/form-data; boundary=x", "", "application/json;;"} {
			// The grant is wrong too: Content-Type is checked before it.
			refused(t, testkit.TokenCall(t, in, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, "wrong")}, ct, "grant_type=password"), 400, "invalid_request")
		}
	})
	t.Run("token: throttled is 429 slow_down with Retry-After, and nothing counts before grant_type passes", func(t *testing.T) {
		th := testkit.MustStart(t, e.store(t), func(c *config.Config) { c.Throttle.UserFailures, c.Throttle.AddrFailures = 2, 0 })
		th.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
		wrongPass := map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, "wrong")}
		for range 5 {
			refused(t, testkit.TokenCall(t, th, wrongPass, testkit.FormCT, "grant_type=password"), 400, "unsupported_grant_type")
		}
		issued(t, testkit.TokenCall(t, th, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)}, testkit.FormCT, "grant_type=client_credentials"))
		for range 2 {
			refused(t, testkit.TokenCall(t, th, wrongPass, testkit.FormCT, "grant_type=client_credentials"), 401, "invalid_client")
		}
		r := testkit.TokenCall(t, th, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)}, testkit.FormCT, "grant_type=client_credentials")
		refused(t, r, 429, "slow_down")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("429 without Retry-After")
		}
		// One throttle for both exchanges.
		legacy := testkit.Call(t, "GET", th.URL+"/api/partner_api.php", testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
		if legacy.Status != 429 || legacy.Body["error"] != "slow_down" {
			t.Fatalf("the legacy exchange after /v1's failures: %d %s", legacy.Status, legacy.Raw)
		}
	})
	t.Run("token: the login upstream down is 503 temporarily_unavailable", func(t *testing.T) {
		down := testkit.MustStart(t, e.store(t), func(c *config.Config) {
			c.Login.URL, c.Login.Timeout = "http://"+testkit.ClosedAddr(t)+"/auth/login", time.Second
		})
		r := testkit.TokenCall(t, down, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)}, testkit.FormCT, "grant_type=client_credentials")
		refused(t, r, 503, "temporarily_unavailable")
		if r.Header.Get("WWW-Authenticate") != "" {
			t.Fatal("an outage answered with a challenge, as if the credentials were wrong")
		}
	})
	t.Run("token: bodies are bounded per client address", func(t *testing.T) {
		// The holder's body must hold its place until the test lets go of it,
		// however long the machine takes to answer the other calls: neither
		// the body rate's grace nor the read timeout may cut it first (they
		// did, on a busy machine, after 5 s).
		one := testkit.MustStart(t, e.store(t), func(c *config.Config) {
			c.HTTP.MaxReceivingPerPartner = 1
			c.HTTP.BodyRateGrace, c.HTTP.ReadTimeout = 10*time.Minute, 10*time.Minute
		})
		one.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
		// A body that has not finished arriving holds the address's place.
		holder := slowTokenBody(t, one)
		// The deadlines are waits for a busy machine, not bounds.
		deadline := time.Now().Add(time.Minute)
		var r testkit.Reply
		for time.Now().Before(deadline) {
			r = testkit.TokenCall(t, one, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)}, testkit.FormCT, "grant_type=client_credentials")
			if r.Status == http.StatusServiceUnavailable {
				break
			}
			time.Sleep(20 * time.Millisecond)
		}
		refused(t, r, 503, "temporarily_unavailable")
		if r.Header.Get("Retry-After") == "" {
			t.Fatal("a full bound without Retry-After")
		}
		_ = holder.Close()
		deadline = time.Now().Add(time.Minute)
		for r.Status != http.StatusOK && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			r = testkit.TokenCall(t, one, map[string]string{"Authorization": testkit.BasicAuth(testkit.Partner, testkit.Password)}, testkit.FormCT, "grant_type=client_credentials")
		}
		issued(t, r)
	})
}

// b64 is s in standard base64: HTTP Basic without RFC 6749's encoding.
func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// slowTokenBody starts a token request whose body never finishes, on a
// connection of its own; close it to let go.
func slowTokenBody(t *testing.T, in *testkit.Instance) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(in.URL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	fmt.Fprintf(conn, "POST /v1/token HTTP/1.1\r\nHost: x\r\nContent-Type: %s\r\nContent-Length: 100\r\n\r\ngrant_type=", testkit.FormCT)
	go func() { _, _ = bufio.NewReader(conn).ReadString(0) }()
	return conn
}

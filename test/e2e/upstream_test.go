package e2e

import (
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// TestExternalLogin: one instance is another's login upstream.
func TestExternalLogin(t *testing.T) {
	t.Parallel()
	a := testkit.MustStart(t, testkit.OwnKey)
	a.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	aPub := filepath.Join(filepath.Dir(a.Config.Auth.PrivateKeyFile), "public.pem")
	b := testkit.MustStart(t, func(c *config.Config) {
		c.Login.URL = a.URL + "/auth/login"
		c.Auth.PublicKeysFile = aPub
	})
	tok := b.Token(t, testkit.Partner, testkit.Password)
	if r := b.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-EXT-1"))); r.Status != 200 {
		t.Fatalf("report to B with A's token: %d %s", r.Status, r.Raw)
	}
	url := b.URL + "/api/partner_api.php"
	if r := testkit.Call(t, "GET", url, testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": "wrong"})); r.Status != 400 || r.Body["error"] != "invalid_client" {
		t.Fatalf("wrong password through B: %d %s", r.Status, r.Raw)
	}

	// C does not trust A's key: it must not hand A's token out.
	c := testkit.MustStart(t, func(c *config.Config) { c.Login.URL = a.URL + "/auth/login" })
	r := testkit.Call(t, "GET", c.URL+"/api/partner_api.php", testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
	if r.Status != 503 || r.Body["error"] != "temporarily_unavailable" || r.Body["access_token"] != nil {
		t.Fatalf("untrusted upstream token: %d %s", r.Status, r.Raw)
	}

	// A goes away: B answers 503, not invalid_client.
	_ = a.Close()
	r = testkit.Call(t, "GET", url, testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
	if r.Status != 503 || r.Body["status"] != float64(503) || r.Body["error"] != "temporarily_unavailable" {
		t.Fatalf("upstream down: %d %s", r.Status, r.Raw)
	}
}

// TestUpstreamFaults: slow, broken and throttling upstreams.
func TestUpstreamFaults(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		name    string
		handler http.HandlerFunc
		status  int
		errCode string
	}{
		{"slow", func(w http.ResponseWriter, r *http.Request) {
			select {
			case <-time.After(10 * time.Second):
			case <-r.Context().Done():
			}
		}, 503, "temporarily_unavailable"},
		{"500", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(500) }, 503, "temporarily_unavailable"},
		{"garbage", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("<html>oops")) }, 503, "temporarily_unavailable"},
		{"token nobody trusts", func(w http.ResponseWriter, _ *http.Request) {
			_, _ = w.Write([]byte(`{"access_token":"eyJhbGciOiJSUzI1NiJ9.e30.c2ln"}`))
		}, 503, "temporarily_unavailable"},
		{"rejects", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(403) }, 400, "invalid_client"},
		{"throttles", func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(429) }, 429, "slow_down"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			up := httptest.NewServer(tt.handler)
			defer up.Close()
			in := testkit.MustStart(t, func(c *config.Config) { c.Login.URL, c.Login.Timeout = up.URL, 300*time.Millisecond })
			start := time.Now()
			r := testkit.Call(t, "GET", in.URL+"/api/partner_api.php", testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
			if r.Status != tt.status || r.Body["error"] != tt.errCode || r.Body["access_token"] != nil {
				t.Fatalf("%d %s; want %d %s", r.Status, r.Raw, tt.status, tt.errCode)
			}
			if tt.status == 429 && r.Header.Get("Retry-After") == "" {
				t.Error("429 without Retry-After")
			}
			// A wait for a hang, not a speed: uncut, the slow upstream holds
			// the call 10 s (and its handler holds up.Close that long
			// whatever the call did, so not longer).
			if time.Since(start) > 8*time.Second {
				t.Errorf("took %s: the login timeout did not cut the call", time.Since(start))
			}
		})
	}
}

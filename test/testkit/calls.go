package testkit

import (
	"io"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"testing"
)

// Exchange asks in for a token through GET /api/partner_api.php with
// user and pw, and header beside the JSON content type.
func Exchange(t *testing.T, in *Instance, user, pw string, header map[string]string) Reply {
	t.Helper()
	h := map[string]string{"Content-Type": "application/json"}
	for k, v := range header {
		h[k] = v
	}
	return Call(t, "GET", in.URL+"/api/partner_api.php", h, MustJSON(map[string]string{"user": user, "password": pw}))
}

// ClosedAddr is a loopback address nothing listens on.
func ClosedAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	_ = ln.Close()
	return addr
}

// Scrape returns the text of a /metrics page.
func Scrape(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("GET %s: %d %s", url, resp.StatusCode, b)
	}
	return string(b)
}

// Metric reads one series, with its labels as written, from /metrics.
func Metric(t *testing.T, in *Instance, series string) int {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(series) + ` (\d+)$`).FindStringSubmatch(Scrape(t, in.URL+"/metrics"))
	if m == nil {
		t.Fatalf("/metrics lacks %s", series)
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

// Dig walks nested maps (decoded JSON or YAML) along path; nil when a
// step is missing.
func Dig(v any, path ...string) any {
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[p]
	}
	return v
}

package e2e

import (
	"bufio"
	"fmt"
	"net"
	"net/netip"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// mustPrefix is the network s names.
func mustPrefix(s string) netip.Prefix { return netip.MustParsePrefix(s) }

// TestThrottlePerUser: 10 failures for one user name give 429 slow_down
// with Retry-After, even for the right password, from any address.
func TestThrottlePerUser(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) { c.Throttle.AddrFailures = 0 })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	for i := 0; i < 10; i++ {
		if r := testkit.Exchange(t, in, testkit.Partner, "guess", nil); r.Status != 400 {
			t.Fatalf("failure %d: %d %s", i, r.Status, r.Raw)
		}
	}
	r := testkit.Exchange(t, in, testkit.Partner, testkit.Password, nil)
	if r.Status != 429 || r.Body["error"] != "slow_down" || r.Body["status"] != float64(429) || r.Header.Get("Retry-After") == "" {
		t.Fatalf("11th attempt: %d %v %s", r.Status, r.Header, r.Raw)
	}
	// The built-in login over HTTP shares the count.
	lr := testkit.Call(t, "POST", in.URL+"/auth/login", testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
	if lr.Status != 429 || lr.Header.Get("Retry-After") == "" {
		t.Fatalf("/auth/login while throttled: %d %s", lr.Status, lr.Raw)
	}
	// Another user is not affected.
	in.AddUser(t, "other", testkit.Nit, testkit.Password)
	if r := testkit.Exchange(t, in, "other", testkit.Password, nil); r.Status != 200 {
		t.Fatalf("other user: %d %s", r.Status, r.Raw)
	}
}

// TestThrottlePerAddressIgnoresSpoofedForwardedFor: without trusted
// proxies, X-Forwarded-For does not move a client to a new address.
func TestThrottlePerAddressIgnoresSpoofedForwardedFor(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) { c.Throttle.AddrFailures, c.Throttle.UserFailures = 5, 0 })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	for i := 0; i < 5; i++ {
		spoof := map[string]string{"X-Forwarded-For": fmt.Sprintf("203.0.113.%d", i), "X-Real-IP": fmt.Sprintf("198.51.100.%d", i)}
		if r := testkit.Exchange(t, in, fmt.Sprintf("user%d", i), "guess", spoof); r.Status != 400 {
			t.Fatalf("failure %d: %d", i, r.Status)
		}
	}
	r := testkit.Exchange(t, in, testkit.Partner, testkit.Password, map[string]string{"X-Forwarded-For": "203.0.113.99"})
	if r.Status != 429 {
		t.Fatalf("6th attempt from the same connection address with a new X-Forwarded-For: %d %s", r.Status, r.Raw)
	}
}

// TestTrustedProxyForwardedFor: behind a configured proxy, the client
// address is the one the proxy reports.
func TestTrustedProxyForwardedFor(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) {
		c.Throttle.AddrFailures, c.Throttle.UserFailures = 3, 0
		c.HTTP.TrustedProxies = config.Defaults().HTTP.TrustedProxies
		c.HTTP.TrustedProxies = append(c.HTTP.TrustedProxies, mustPrefix("127.0.0.0/8"))
	})
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	for i := 0; i < 3; i++ {
		testkit.Exchange(t, in, "x", "guess", map[string]string{"X-Forwarded-For": "203.0.113.7"})
	}
	if r := testkit.Exchange(t, in, testkit.Partner, testkit.Password, map[string]string{"X-Forwarded-For": "203.0.113.7"}); r.Status != 429 {
		t.Fatalf("client behind proxy over its limit: %d", r.Status)
	}
	if r := testkit.Exchange(t, in, testkit.Partner, testkit.Password, map[string]string{"X-Forwarded-For": "203.0.113.8"}); r.Status != 200 {
		t.Fatalf("another client behind the same proxy: %d %s", r.Status, r.Raw)
	}
	if !strings.Contains(in.Logs.String(), `"client":"203.0.113.7"`) {
		t.Error("auth log lacks the forwarded client address")
	}
}

// TestSlowlorisIsCut: a client that trickles its headers is cut by the
// header timeout, and other partners are served meanwhile.
func TestSlowlorisIsCut(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) { c.HTTP.ReadHeaderTimeout = 500 * time.Millisecond })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	conns := make([]net.Conn, 20)
	for i := range conns {
		c, err := net.Dial("tcp", in.Addr)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /api/partner_api.php HTTP/1.1\r\nHost: x\r\n")
		conns[i] = c
	}
	start := time.Now()
	tok := in.Token(t, testkit.Partner, testkit.Password)
	if r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-SLOW-1"))); r.Status != 200 {
		t.Fatalf("report during slowloris: %d", r.Status)
	}
	// A wait for a hang, not a speed: the slow clients never finish their
	// headers, so a partner served only after them would wait forever.
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("a normal partner waited %s behind slow clients", d)
	}
	for i, c := range conns {
		_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
		for j := 0; j < 10; j++ { // keep trickling
			if _, err := c.Write([]byte("X-Slow: 1\r\n")); err != nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
		line, err := bufio.NewReader(c).ReadString('\n')
		if err == nil && !strings.Contains(line, "408") && !strings.Contains(line, "400") {
			t.Fatalf("slow client %d was answered %q instead of being cut", i, line)
		}
	}
}

// TestHostileBodies: each gets a 4xx with a clear message, never a 5xx.
func TestHostileBodies(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	minimal := string(testkit.MustJSON(fixture.Minimal(time.Now(), "CR-HOST-1")))
	huge := strings.Repeat("A", 30<<20)
	for name, body := range map[string]string{
		"nested 10000 deep":        `{"Observaciones":` + strings.Repeat("[", 10000) + strings.Repeat("]", 10000) + `}`,
		"30 MiB in a text field":   strings.Replace(minimal, `"CV-001"`, `"`+huge+`"`, 1),
		"1e400":                    strings.Replace(minimal, `"14334900.00"`, `1e400`, 1),
		"array for the FileDto":    strings.Replace(minimal, "{", `{"Documento Soporte":[1,2],`, 1),
		"object for a field":       strings.Replace(minimal, `"CV-001"`, `{"a":1}`, 1),
		"invalid UTF-8":            strings.Replace(minimal, "Pérez", "P\xe9rez", 1),
		"NUL in a name":            strings.Replace(minimal, "Pérez", `P\u0000rez`, 1),
		"credit number look-alike": strings.Replace(minimal, "CR-HOST-1", "CR\u2010HOST\u20101", 1),
		"credit number 31 chars":   strings.Replace(minimal, "CR-HOST-1", strings.Repeat("9", 31), 1),
		"credit number with NUL":   strings.Replace(minimal, "CR-HOST-1", `CR\u0000HOST`, 1),
		"only whitespace":          "   ",
		"null":                     "null",
	} {
		t.Run(name, func(t *testing.T) {
			r := in.Report(t, tok, []byte(body))
			if r.Status < 400 || r.Status >= 500 || r.Body["status"] != "400" || r.Body["message"] == "" {
				t.Fatalf("%d %.300s", r.Status, r.Raw)
			}
		})
	}
	if n := storetest.CountReports(t, in.Config.Store.Driver, in.Config.Store.DSN); n != 0 {
		t.Fatalf("%d rows from hostile bodies", n)
	}
}

// TestDeactivationWithinStaleness: with the user-status cache on, a
// deactivated user's token is refused within auth.user_staleness.
func TestDeactivationWithinStaleness(t *testing.T) {
	t.Parallel()
	in := testkit.MustStart(t, func(c *config.Config) { c.Auth.UserStaleness = time.Second })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	if r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-STALE-1"))); r.Status != 200 {
		t.Fatal(r.Status)
	}
	if err := in.Store.SetActive(t.Context(), testkit.Partner, false); err != nil {
		t.Fatal(err)
	}
	time.Sleep(1100 * time.Millisecond)
	if r := in.Report(t, tok, testkit.MustJSON(fixture.Minimal(time.Now(), "CR-STALE-2"))); r.Status != 401 {
		t.Fatalf("after the staleness bound: %d %s", r.Status, r.Raw)
	}
}

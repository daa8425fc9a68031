package httpapi

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestTricklingSmallBodyHoldsNoPlace: a POST /v1/webhook_endpoints whose
// body trickled in held its partner's look-up place while it did (read
// after the place was taken, with no rate guard): every GET of the
// partner met 503 overloaded until read_timeout (found by the nineteenth
// session's attacker review). The body is now read first, at the minimum
// body rate: the partner's look-ups go on, and the trickle is cut with
// 408 body_too_slow once it falls behind.
func TestTricklingSmallBodyHoldsNoPlace(t *testing.T) {
	t.Parallel()
	x := newS11(t, Limits{LookupSlotsPerPartner: 1, LookupTimeout: 200 * time.Millisecond, MinBodyRate: 1024, BodyRateGrace: 700 * time.Millisecond})
	c, err := net.Dial("tcp", strings.TrimPrefix(x.url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	fmt.Fprintf(c, "POST /v1/webhook_endpoints HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	for range 3 {
		time.Sleep(100 * time.Millisecond)
		_, _ = c.Write([]byte(" "))
		if a := x.do(t, "GET", "/v1/webhook_endpoints", v1Headers, ""); a.status != http.StatusOK {
			t.Fatalf("GET /v1/webhook_endpoints while another POST's body trickles: %d %s", a.status, a.raw)
		}
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatalf("no answer to the trickling body: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusRequestTimeout || !strings.Contains(string(body), "body_too_slow") {
		t.Fatalf("the trickling body: %d %s; want 408 body_too_slow", resp.StatusCode, body)
	}
}

// TestTricklingTokenBodyIsCut: the legacy token surfaces (GET
// /api/partner_api.php, POST /auth/login) read their body with no rate
// guard, so a body trickled a byte at a time held its connection until
// http.read_timeout (left open by the nineteenth session). They read it
// as POST /v1/token does now: cut once it falls behind the minimum body
// rate, answered as the surface answers a body it cannot read, the
// connection closed.
func TestTricklingTokenBodyIsCut(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Limits{MinBodyRate: 1024, BodyRateGrace: 700 * time.Millisecond})
	for _, tt := range []struct {
		method, path string
		status       int
	}{
		{"GET", PartnerPath, http.StatusBadRequest},
		{"POST", "/auth/login", http.StatusUnauthorized},
	} {
		t.Run(tt.path, func(t *testing.T) {
			c, err := net.Dial("tcp", strings.TrimPrefix(h.url, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer c.Close()
			start := time.Now()
			fmt.Fprintf(c, "%s %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{", tt.method, tt.path)
			go func() {
				for range 100 {
					time.Sleep(100 * time.Millisecond)
					if _, err := c.Write([]byte(" ")); err != nil {
						return
					}
				}
			}()
			_ = c.SetReadDeadline(time.Now().Add(8 * time.Second))
			resp, err := http.ReadResponse(bufio.NewReader(c), nil)
			if err != nil {
				t.Fatalf("no answer to a trickling token body after %s: %v", time.Since(start).Round(time.Millisecond), err)
			}
			body, _ := io.ReadAll(resp.Body)
			if resp.StatusCode != tt.status || !strings.Contains(string(body), `"invalid_client"`) || !resp.Close {
				t.Fatalf("the trickling body: %d %s (close %v); want %d invalid_client and the connection closed", resp.StatusCode, body, resp.Close, tt.status)
			}
		})
	}
}

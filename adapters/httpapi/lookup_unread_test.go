package httpapi

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// TestUnreadLookupAnswersHoldNoLookupPlace: a client of acme's
// pipelines GET /v1/events on one connection and reads nothing. Once
// the connection's buffers are full, the server's write of an answer
// blocks inside the handler, with the partner's look-up place still held
// (handleV1Events: defer done(); GET /v1/reports/{id}, GET /v1/events/{id},
// GET /v1/webhook_endpoints and the endpoint routes alike), until http.write_timeout: every other
// look-up of the partner (its other user names too) meets 503 overloaded.
// GET /v1/reports (v1list) gives its place back before writing; the other
// look-ups do not.
func TestUnreadLookupAnswersHoldNoLookupPlace(t *testing.T) {
	t.Parallel()
	x := newS11(t, Limits{LookupSlots: 1, LookupSlotsPerPartner: 1})
	for i := range 40 {
		x.report(t, "CR-"+itoa(int64(i+1)))
	}
	x.clock.Add(time.Minute) // past events.list_delay
	loc := "/v1/events?limit=100"
	if a := x.do(t, "GET", loc, v1Headers, ""); a.status != 200 {
		t.Fatalf("GET %s: %d %s", loc, a.status, a.raw)
	} else {
		t.Logf("one answer: %d bytes", len(a.raw))
	}

	req := "GET " + loc + " HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\n\r\n"
	sendUnread(t, x.url, req, 5000) // answers never read
	// The look-ups answered are the request lines logged.
	untilBlocked(t, 5000, 15*time.Second, func() int { return strings.Count(x.logText(), `"route":"/v1/events"`) })
	acme2 := map[string]string{"Authorization": "Bearer good-acme2"}
	for i := range 3 {
		if a := x.do(t, "GET", loc, acme2, ""); a.status == http.StatusServiceUnavailable {
			t.Fatalf("acme's other user name, look-up %d, while one connection reads nothing: %d %s", i, a.status, a.raw)
		}
	}
}

package httpapi

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"
)

// TestSmallBodiesAtTheDefaults: at the configuration's defaults
// (max_receiving 1024, max_receiving_per_partner 256; lookup_slots 16,
// lookup_slots_per_partner 4) one token's 120 trickled endpoint bodies
// hold at most the partner's 4 places: bounded by max_receiving's
// numbers (615502c), all 120 fitted (the session's second look).
func TestSmallBodiesAtTheDefaults(t *testing.T) {
	t.Parallel()
	x := newS11(t, Limits{MaxReceiving: 1024, MaxReceivingPerPartner: 256, LookupSlots: 16, LookupSlotsPerPartner: 4, MinBodyRate: 1, BodyRateGrace: 20 * time.Second})
	const n = 120
	for range n {
		c, err := net.Dial("tcp", strings.TrimPrefix(x.url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /v1/webhook_endpoints HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer good\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{")
	}
	deadline := time.Now().Add(5 * time.Second)
	for x.srv.smalls.taken() < 4 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond) // the rest arrive, and are turned away
	if got := x.srv.smalls.taken(); got != 4 {
		t.Errorf("one token holds %d of %d trickled endpoint bodies at the default bounds, want its 4 places", got, n)
	}
}

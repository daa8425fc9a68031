package httpapi

import (
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestUnreadAnswersHoldNoReportSlot: a client that sends reports and
// never reads the answers (each a 400 of 100 problems, ~30 KB) fills its
// connection's buffers until the server's write blocks. The report slot
// and the body's bytes are given back before the answer is written, so
// another partner's report is not turned away with 503 overloaded (the
// twenty-first session's review: 40 such connections held every slot for
// http.write_timeout; with one slot, one connection does).
func TestUnreadAnswersHoldNoReportSlot(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Limits{MaxInFlight: 1})
	var ps []domain.Problem
	for i := range 100 {
		ps = append(ps, domain.Problem{Field: fmt.Sprintf("campo_%02d_%s", i, strings.Repeat("x", 50)), Code: "invalid_value",
			Message: strings.Repeat("valor no válido ", 14)})
	}
	h.reports.err = &domain.Error{Kind: domain.ErrInvalidInput, Code: "invalid_report", Message: "Reporte inválido", Problems: ps}
	if a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`); a.status != 400 || len(a.raw) < 20000 {
		t.Fatalf("the answer the client will not read: %d, %d bytes; want a 400 past 20 KB", a.status, len(a.raw))
	}

	req := "POST " + PartnerPath + " HTTP/1.1\r\nHost: x\r\nAuthentication-Type: bearer good\r\n" +
		"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	sendUnread(t, h.url, req, 400) // ~12 MB of answers, never read
	untilBlocked(t, 400, 10*time.Second, func() int {
		h.reports.mu.Lock()
		defer h.reports.mu.Unlock()
		return len(h.reports.got)
	})
	for i := range 3 {
		if a := h.do(t, "POST", PartnerPath, map[string]string{"Authentication-Type": "bearer good-beta", "Content-Type": "application/json"}, `{}`); a.status == 503 {
			t.Fatalf("another partner's report %d while a client reads nothing: %d %s", i, a.status, a.raw)
		}
	}
}

// sendUnread opens a connection to url's server with a small receive
// buffer and sends req n times on it, pipelined; it reads nothing, so
// the server's writes block once the buffers are full. The connection
// closes when the test ends.
func sendUnread(t *testing.T, url, req string, n int) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	if err := conn.(*net.TCPConn).SetReadBuffer(1024); err != nil {
		t.Fatal(err)
	}
	go func() { _, _ = conn.Write([]byte(strings.Repeat(req, n))) }()
	return conn
}

// untilBlocked waits until count, the requests the server has taken,
// stops growing (a write of an answer blocks), within limit; it fails
// when it never does, or when all n were taken (nothing blocked: the
// test would prove nothing).
func untilBlocked(t *testing.T, n int, limit time.Duration, count func() int) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for last := -1; ; {
		time.Sleep(300 * time.Millisecond)
		got := count()
		if got == last && got > 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the server took %d of %d unread requests and never blocked", got, n)
		}
		last = got
	}
	if got := count(); got >= n {
		t.Fatalf("the server answered all %d requests: nothing blocked, the test proves nothing", got)
	}
}

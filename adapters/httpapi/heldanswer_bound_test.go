package httpapi

import (
	"fmt"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestHeldAnswersAreBoundedByPartner: since dab0438 an answer a client
// does not read waits in heldAnswer.send after its slot and byte hold are
// given back; nothing bounded how many such answers (each up to 64 KiB,
// with the connection's buffers and goroutine) were kept at once (the
// session's second look: with one report slot, 4 connections that read
// nothing kept 4 ~30 KB answers for http.write_timeout). Reports hold a
// place by partner from their slot to the end of their answer. Not
// parallel: it counts every goroutine blocked in heldAnswer.send.
func TestHeldAnswersAreBoundedByPartner(t *testing.T) {
	h := newHarness(t, Limits{MaxInFlight: 1, MaxReceiving: 2, MaxReceivingPerPartner: 2})
	var ps []domain.Problem
	for i := range 100 {
		ps = append(ps, domain.Problem{Field: fmt.Sprintf("campo_%02d_%s", i, strings.Repeat("x", 50)), Code: "invalid_value",
			Message: strings.Repeat("valor no válido ", 14)})
	}
	h.reports.err = &domain.Error{Kind: domain.ErrInvalidInput, Code: "invalid_report", Message: "Reporte inválido", Problems: ps}
	req := "POST " + PartnerPath + " HTTP/1.1\r\nHost: x\r\nAuthentication-Type: bearer good\r\n" +
		"Content-Type: application/json\r\nContent-Length: 2\r\n\r\n{}"
	held := func() int {
		buf := make([]byte, 8<<20)
		return strings.Count(string(buf[:runtime.Stack(buf, true)]), "(*heldAnswer).send")
	}
	const conns = 4
	for i := range conns {
		sendUnread(t, h.url, req, 400)
		deadline := time.Now().Add(3 * time.Second)
		for held() < i+1 && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
		}
	}
	if n := held(); n > 2 {
		t.Errorf("%d answers kept, blocked on clients that read nothing, with 1 report slot and 2 places a partner: no bound", n)
	}
	beta := map[string]string{"Authentication-Type": "bearer good-beta", "Content-Type": "application/json"}
	if a := h.do(t, "POST", PartnerPath, beta, `{}`); a.status == 503 {
		t.Errorf("another partner's report while acme's answers wait: %d %s", a.status, a.raw)
	}
}

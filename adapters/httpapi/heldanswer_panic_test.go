package httpapi

import (
	"testing"
)

// TestPanicInSlotGivesBackSlotAndBytes: a panic in a report's step
// (inSlot) gives back its report slot and its bytes: with one slot, and a
// byte budget of exactly one body's hold, the next report is answered 500
// by the panic rule again, never 503 overloaded. (Ruled out: no leak.)
func TestPanicInSlotGivesBackSlotAndBytes(t *testing.T) {
	t.Parallel()
	h := newHarness(t, Limits{MaxInFlight: 1, MaxBody: 1 << 20, MaxBytesInFlight: 4 << 20})
	h.rebuild(t, func(s *Server) { s.Reports = panicReports{} })
	for i := range 3 {
		if a := h.do(t, "POST", PartnerPath, reportHeaders, `{}`); a.status != 500 {
			t.Fatalf("report %d after a panic: %d %s", i, a.status, a.raw)
		}
	}
	if n := len(h.srv.inFlight); n != 0 {
		t.Fatalf("%d report slots still held after the panics", n)
	}
	if n := h.srv.answers.taken(); n != 0 {
		t.Fatalf("%d answer places still held after the panics", n)
	}
	h.srv.bytes.mu.Lock()
	used := h.srv.bytes.used
	h.srv.bytes.mu.Unlock()
	if used != 0 {
		t.Fatalf("%d bytes still held after the panics", used)
	}
}

package testkit

import (
	"testing"
	"time"
)

// TestAnOlderListenersExchangesAreNotThisServers: an exchange recorded
// with a port before the server now on it started (another test's
// internal listener that had the port) is dropped, not charged to that
// server; its own exchanges are returned; others' stay recorded.
func TestAnOlderListenersExchangesAreNotThisServers(t *testing.T) {
	base, other := "http://127.0.0.1:1", "http://127.0.0.1:2"
	started := time.Now()
	old := &recordedExchange{at: started.Add(-time.Second), method: "GET", url: base + "/metrics"}
	mine := &recordedExchange{at: started, method: "GET", url: base + "/healthz"}
	theirs := &recordedExchange{at: started, method: "GET", url: other + "/healthz"}
	recorded.mu.Lock()
	recorded.exchanges = append(recorded.exchanges, old, mine, theirs)
	recorded.mu.Unlock()
	got := takeExchanges(base, started)
	if len(got) != 1 || got[0] != mine {
		t.Errorf("takeExchanges = %d exchanges; want this server's one", len(got))
	}
	if again := takeExchanges(base, time.Time{}); len(again) != 0 {
		t.Errorf("%d exchanges with the port left behind", len(again))
	}
	if left := takeExchanges(other, time.Time{}); len(left) != 1 || left[0] != theirs {
		t.Errorf("another server's exchanges: %d, want its one", len(left))
	}
}

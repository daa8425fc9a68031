package httpapi

import (
	"io"
	"net/http/httptest"
	"testing"
	"time"
)

// TestRateGuardChargesOnlyTheWaitForBytes: the time the server spends
// between reads (here 300 ms, three windows, before its first read) is its
// own, not the client's: bytes waiting to be read are read, not cut as too
// slow. A read that then waits for bytes longer than the window is cut.
func TestRateGuardChargesOnlyTheWaitForBytes(t *testing.T) {
	const window = 100 * time.Millisecond
	away, aw := io.Pipe()
	defer aw.Close()
	g := newRateGuard(httptest.NewRecorder(), away, 1, window)
	defer g.stop()
	go func() { // the client sends just after the server is back
		time.Sleep(3*window + window/3)
		_, _ = aw.Write([]byte("abcd"))
		_, _ = aw.Write([]byte("efgh"))
	}()
	time.Sleep(3 * window) // the server busy elsewhere
	buf := make([]byte, 4)
	for i := range 2 {
		if n, err := g.Read(buf); err != nil || n != 4 {
			t.Fatalf("read %d after the server was away: %d, %v; want 4 bytes", i, n, err)
		}
	}

	pr, pw := io.Pipe()
	defer pw.Close()
	slow := newRateGuard(httptest.NewRecorder(), pr, 1, window)
	defer slow.stop()
	go func() { // one byte, then nothing for ten windows: the read waits for bytes
		_, _ = pw.Write([]byte("x"))
		time.Sleep(10 * window)
		_ = pw.Close()
	}()
	if _, err := slow.Read(buf); err != nil {
		t.Fatal(err)
	}
	if _, err := slow.Read(buf); err != errBodyTooSlow {
		t.Fatalf("a read that waited ten windows for bytes: %v; want errBodyTooSlow", err)
	}
}

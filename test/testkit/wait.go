package testkit

import (
	"testing"
	"time"
)

// WaitFor polls ok every 50 ms until it holds, or fails the test after
// limit, naming what it waited for.
func WaitFor(t *testing.T, what string, limit time.Duration, ok func() bool) {
	t.Helper()
	for deadline := time.Now().Add(limit); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		if ok() {
			return
		}
	}
	t.Fatalf("timed out after %s waiting for %s", limit, what)
}

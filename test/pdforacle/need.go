package pdforacle

import (
	"os"
	"testing"
)

// NeedReader skips tb when r cannot run here, or fails it under CI=true,
// where .ci/run has installed every reader.
func NeedReader(tb testing.TB, r *Reader) {
	tb.Helper()
	if err := r.Missing(); err != nil {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("CI=true and %s cannot run: %v", r.Name, err)
		}
		tb.Skipf("%s cannot run: %v", r.Name, err)
	}
}

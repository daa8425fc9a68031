package storetest

import (
	"testing"
	"time"
)

// namedTest is one test of a suite, run on a subject H of its own.
type namedTest[H any] struct {
	name string
	run  func(t *testing.T, h H)
}

// runEach runs each test as a parallel subtest on a subject open makes
// for it alone (a store, a directory, a database): the tests share
// nothing, so their waits overlap.
func runEach[H any](t *testing.T, open func(testing.TB) H, tests []namedTest[H]) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			tc.run(t, open(t))
		})
	}
}

// reportNow is the report-store suite's now, in the precision every
// store keeps.
func reportNow() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

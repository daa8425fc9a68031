package httpapi

import (
	"bytes"
	"io"
	"runtime"
	"strings"
	"testing"
)

// TestReadBodyBelievesTheLengthOnlyOnceDataArrives: a body that declares
// 32 MiB and sends 10 bytes costs about firstChunk, not 32 MiB; bodies
// on either side of firstChunk come back whole.
func TestReadBodyBelievesTheLengthOnlyOnceDataArrives(t *testing.T) {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	_, err := readBody(strings.NewReader("0123456789"), 32<<20)
	runtime.ReadMemStats(&after)
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("short body: %v; want io.ErrUnexpectedEOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*firstChunk {
		t.Fatalf("a body declaring 32 MiB and sending 10 bytes allocated %d bytes", got)
	}
	for _, n := range []int{1, firstChunk - 1, firstChunk, firstChunk + 1, 3 * firstChunk} {
		want := bytes.Repeat([]byte{'x'}, n)
		got, err := readBody(bytes.NewReader(want), int64(n))
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: %d back, %v", n, len(got), err)
		}
	}
	if got, err := readBody(strings.NewReader("abc"), -1); err != nil || string(got) != "abc" {
		t.Fatalf("unknown length: %q, %v", got, err)
	}
}

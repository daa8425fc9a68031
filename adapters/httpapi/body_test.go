package httpapi

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
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
	_, err := readBody(strings.NewReader("0123456789"), 32<<20, 64<<20, always)
	runtime.ReadMemStats(&after)
	if err != io.ErrUnexpectedEOF {
		t.Fatalf("short body: %v; want io.ErrUnexpectedEOF", err)
	}
	if got := after.TotalAlloc - before.TotalAlloc; got > 2*firstChunk {
		t.Fatalf("a body declaring 32 MiB and sending 10 bytes allocated %d bytes", got)
	}
	for _, n := range []int{1, firstChunk - 1, firstChunk, firstChunk + 1, 3 * firstChunk} {
		want := bytes.Repeat([]byte{'x'}, n)
		got, err := readBody(bytes.NewReader(want), int64(n), 64<<20, always)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: %d back, %v", n, len(got), err)
		}
	}
	for _, n := range []int{0, 3, firstChunk, firstChunk + 1, 3 * firstChunk, 4 * firstChunk} {
		want := bytes.Repeat([]byte{'y'}, n)
		got, err := readBody(bytes.NewReader(want), -1, 4*firstChunk, always)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("unknown length, %d bytes: %d back, %v", n, len(got), err)
		}
	}
}

func always(int64) bool { return true }

// TestReadBodyCoversEachBufferFirst: a body of unknown length asks to
// cover each buffer before allocating it, doubling up to the limit; a
// body that declares its length asks once, for that length. A refusal
// stops the read with errOverBudget.
func TestReadBodyCoversEachBufferFirst(t *testing.T) {
	var asked []int64
	record := func(n int64) bool { asked = append(asked, n); return true }
	if _, err := readBody(bytes.NewReader(make([]byte, 5*firstChunk)), -1, 6*firstChunk, record); err != nil {
		t.Fatal(err)
	}
	if want := []int64{unsizedStart << 0, unsizedStart << 1, unsizedStart << 2, unsizedStart << 3, unsizedStart << 4, unsizedStart << 5, unsizedStart << 6, 6 * firstChunk}; !slices.Equal(asked, want) {
		t.Fatalf("unknown length: covered %v, want %v", asked, want)
	}
	asked = nil
	if _, err := readBody(bytes.NewReader(make([]byte, 5*firstChunk)), 5*firstChunk, 6*firstChunk, record); err != nil {
		t.Fatal(err)
	}
	if want := []int64{5 * firstChunk}; !slices.Equal(asked, want) {
		t.Fatalf("declared length: covered %v, want %v", asked, want)
	}
	upTo := func(max int64) func(int64) bool { return func(n int64) bool { return n <= max } }
	if _, err := readBody(bytes.NewReader(make([]byte, 5*firstChunk)), -1, 6*firstChunk, upTo(2*firstChunk)); !errors.Is(err, errOverBudget) {
		t.Fatalf("unknown length past the budget: %v, want errOverBudget", err)
	}
	if _, err := readBody(bytes.NewReader(make([]byte, 5*firstChunk)), 5*firstChunk, 6*firstChunk, upTo(2*firstChunk)); !errors.Is(err, errOverBudget) {
		t.Fatalf("declared length past the budget: %v, want errOverBudget", err)
	}
}

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

const mib = 1 << 20

// TestReadBodyHoldsWhatArrived: a body that declares 32 MiB and sends 10
// bytes, or 60 KiB (issue 32, finding 1's attack), costs one first step,
// not its declared length; bodies on either side of each step come back
// whole, with a declared length and without.
func TestReadBodyHoldsWhatArrived(t *testing.T) {
	for _, sent := range []int{10, 60 << 10} {
		src := bytes.NewReader(make([]byte, sent))
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		_, err := readBody(src, 32*mib, 64*mib, always)
		runtime.ReadMemStats(&after)
		if err != io.ErrUnexpectedEOF {
			t.Fatalf("short body: %v; want io.ErrUnexpectedEOF", err)
		}
		if got := after.TotalAlloc - before.TotalAlloc; got > 2*firstStep {
			t.Fatalf("a body declaring 32 MiB and sending %d bytes allocated %d bytes", sent, got)
		}
	}
	for _, n := range []int{0, 1, firstStep - 1, firstStep, firstStep + 1, mib, 3*mib + 7} {
		want := bytes.Repeat([]byte{'x'}, n)
		got, err := readBody(bytes.NewReader(want), int64(n), 64*mib, always)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: %d back, %v", n, len(got), err)
		}
	}
	for _, n := range []int{0, 3, firstStep, firstStep + 1, mib, mib + 1, 3 * mib, 4 * mib} {
		want := bytes.Repeat([]byte{'y'}, n)
		got, err := readBody(bytes.NewReader(want), -1, 4*mib, always)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("unknown length, %d bytes: %d back, %v", n, len(got), err)
		}
	}
}

func always(int64) bool { return true }

// TestReadBodyCoversEachBufferFirst: a body asks to cover each buffer
// before allocating it, doubling from firstStep up to its declared length
// or, when it declares none, up to the limit: the hold grows with
// what has arrived (issue 32, finding 1), never with what is declared. A
// refusal stops the read with errOverBudget.
func TestReadBodyCoversEachBufferFirst(t *testing.T) {
	var asked []int64
	record := func(n int64) bool { asked = append(asked, n); return true }
	steps := func(last int64) []int64 {
		var s []int64
		for n := int64(firstStep); n < last; n *= 2 {
			s = append(s, n)
		}
		return append(s, last)
	}
	if _, err := readBody(bytes.NewReader(make([]byte, 5*mib)), -1, 6*mib, record); err != nil {
		t.Fatal(err)
	}
	if want := steps(6 * mib); !slices.Equal(asked, want) {
		t.Fatalf("unknown length: covered %v, want %v", asked, want)
	}
	asked = nil
	if _, err := readBody(bytes.NewReader(make([]byte, 5*mib)), 5*mib, 6*mib, record); err != nil {
		t.Fatal(err)
	}
	if want := steps(5 * mib); !slices.Equal(asked, want) {
		t.Fatalf("declared length: covered %v, want %v", asked, want)
	}
	asked = nil
	if _, err := readBody(strings.NewReader(strings.Repeat("z", 60<<10)), 32*mib, 64*mib, record); err != io.ErrUnexpectedEOF {
		t.Fatalf("60 KiB of a declared 32 MiB: %v, want io.ErrUnexpectedEOF", err)
	}
	if want := []int64{firstStep}; !slices.Equal(asked, want) {
		t.Fatalf("60 KiB of a declared 32 MiB: covered %v, want %v", asked, want)
	}
	upTo := func(max int64) func(int64) bool { return func(n int64) bool { return n <= max } }
	if _, err := readBody(bytes.NewReader(make([]byte, 5*mib)), -1, 6*mib, upTo(2*mib)); !errors.Is(err, errOverBudget) {
		t.Fatalf("unknown length past the budget: %v, want errOverBudget", err)
	}
	if _, err := readBody(bytes.NewReader(make([]byte, 5*mib)), 5*mib, 6*mib, upTo(2*mib)); !errors.Is(err, errOverBudget) {
		t.Fatalf("declared length past the budget: %v, want errOverBudget", err)
	}
}

package httpapi

import (
	"bytes"
	"errors"
	"io"
	"runtime"
	"slices"
	"strconv"
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

// TestReadBodyOfNoRoom: a limit of 0 with no declared length reads
// nothing and gives an empty body (no step of size 0 is a pool's).
func TestReadBodyOfNoRoom(t *testing.T) {
	if got, err := readBody(strings.NewReader("x"), -1, 0, always); err != nil || len(got) != 0 {
		t.Fatalf("limit 0: %q, %v", got, err)
	}
}

// TestReadBodyCoversEachBufferFirst: a body asks to cover each buffer
// before allocating it, doubling up to its declared length (from the size
// that reaches it exactly) or, when it declares none, from firstStep up to
// the limit: the hold grows with
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
	// W2's body (a 200 KB file, 278,520 bytes in all) and W3's: each
	// buffer twice the last, the last the declared length, the first at
	// most firstStep and more than half of it.
	for _, n := range []int64{5 * mib, 278_520, 28_026_423, firstStep + 1, 2 * firstStep} {
		asked = nil
		if _, err := readBody(bytes.NewReader(make([]byte, n)), n, 64*mib, record); err != nil {
			t.Fatal(err)
		}
		if asked[len(asked)-1] != n || asked[0] > firstStep || 2*asked[0] <= firstStep {
			t.Fatalf("declared length %d: covered %v", n, asked)
		}
		for i := 1; i < len(asked); i++ {
			if asked[i] > 2*asked[i-1] || asked[i] <= asked[i-1] {
				t.Fatalf("declared length %d: covered %v: a step more than doubles", n, asked)
			}
		}
		var held int64
		for _, a := range asked {
			held += a
		}
		if held >= 2*n {
			t.Fatalf("declared length %d: buffers of %d bytes in all, want under twice the body", n, held)
		}
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

// BenchmarkReadBody reads W2's and W3's bodies with their lengths
// declared: -benchmem shows the bytes each allocates on its way to one
// buffer of its size.
func BenchmarkReadBody(b *testing.B) {
	for _, n := range []int{278_520, 28_026_423} {
		body := make([]byte, n)
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			b.SetBytes(int64(n))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := readBody(bytes.NewReader(body), int64(n), 64*mib, always); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestReadBodyReusesItsSteps: the buffers a body is read through before
// its last go back to a pool, so W2's body (278,520 bytes, read through
// three smaller buffers) allocates about its own size, not twice it. It
// runs in test/run's allocs stage, without the race detector.
func TestReadBodyReusesItsSteps(t *testing.T) {
	if raceDetector {
		t.Skip("under the race detector a pool drops a quarter of what it is given: asserted in the allocs stage")
	}
	const n = 278_520
	src := bytes.Repeat([]byte{'w'}, n)
	readBodyOf(t, src, n) // fills the pool
	const runs = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range runs {
		readBodyOf(t, src, n)
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / runs; per > n*5/4 {
		t.Fatalf("a %d-byte body allocated %d bytes a read; want about its own size (its steps reused)", n, per)
	}
}

// TestReadBodyGivesItsOwnBuffer: the body returned is the caller's
// alone: bodies read after it, through the same pool, with or without a
// declared length, leave its bytes as they were.
func TestReadBodyGivesItsOwnBuffer(t *testing.T) {
	const n, k = 278_520, 100 << 10 // k: read through a pool buffer when no length is declared
	kept := map[bool][]byte{}
	for _, declared := range []bool{true, false} {
		length := int64(-1)
		if declared {
			length = k
		}
		kept[declared] = readBodyOf(t, bytes.Repeat([]byte{'k'}, k), length)
	}
	for i := range 20 {
		readBodyOf(t, bytes.Repeat([]byte{byte('a' + i)}, k), []int64{k, -1}[i%2])
		readBodyOf(t, bytes.Repeat([]byte{byte('a' + i)}, n), []int64{n, -1}[i%2])
	}
	for declared, b := range kept {
		if len(b) != k || bytes.Count(b, []byte{'k'}) != k {
			t.Fatalf("a body read with its length declared %v changed after later bodies were read", declared)
		}
	}
}

// readBodyOf reads b through readBody, declaring length (-1: none), and
// fails unless it comes back whole.
func readBodyOf(t *testing.T, b []byte, length int64) []byte {
	t.Helper()
	got, err := readBody(bytes.NewReader(b), length, 64*mib, always)
	if err != nil || !bytes.Equal(got, b) {
		t.Fatalf("%d bytes (declared %d): %d back, %v", len(b), length, len(got), err)
	}
	return got
}

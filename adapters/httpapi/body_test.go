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
	for _, n := range []int{0, 1, firstStep - 1, firstStep, firstStep + 1, 2*firstStep + 1, 278_520, mib - 1, mib, mib + 1, 3 * mib / 2, 2 * mib, 3*mib + 7} {
		want := bytes.Repeat([]byte{'x'}, n)
		got, err := readBody(bytes.NewReader(want), int64(n), 64*mib, always)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("%d bytes: %d back, %v", n, len(got), err)
		}
	}
	for _, n := range []int{0, 3, firstStep, firstStep + 1, 278_520, mib, mib + 1, 2 * mib, 3 * mib, 4 * mib} {
		want := bytes.Repeat([]byte{'y'}, n)
		got, err := readBody(bytes.NewReader(want), -1, 4*mib, always)
		if err != nil || !bytes.Equal(got, want) {
			t.Fatalf("unknown length, %d bytes: %d back, %v", n, len(got), err)
		}
	}
}

func always(int64) bool { return true }

// halvedTo returns n halved (rounded up) until it is at most m.
func halvedTo(n, m int64) int64 {
	for n > m {
		n = (n + 1) / 2
	}
	return n
}

// TestReadBodyOfNoRoom: a limit of 0 with no declared length reads
// nothing and gives an empty body (no step of size 0 is a pool's).
func TestReadBodyOfNoRoom(t *testing.T) {
	if got, err := readBody(strings.NewReader("x"), -1, 0, always); err != nil || len(got) != 0 {
		t.Fatalf("limit 0: %q, %v", got, err)
	}
}

// TestReadBodyCoversEachBufferFirst: a body asks to cover each buffer
// before allocating it, doubling from firstStep up to its declared length
// or, when it declares none, up to the limit: the hold grows with what
// has arrived (issue 32, finding 1), never with what is declared. The
// steps up to maxPooledStep are firstStep doubled (powers of two, which
// the pool of steps holds exactly); past it a declared length's are that
// length halved and rounded up to firstStep, each at most twice the one
// before; the steps before the
// body's own add up to less than twice the body. A refusal stops the read
// with errOverBudget.
func TestReadBodyCoversEachBufferFirst(t *testing.T) {
	var asked []int64
	record := func(n int64) bool { asked = append(asked, n); return true }
	if _, err := readBody(bytes.NewReader(make([]byte, 5*mib)), -1, 6*mib, record); err != nil {
		t.Fatal(err)
	}
	var want []int64
	for n := int64(firstStep); n < 6*mib; n *= 2 {
		want = append(want, n)
	}
	if want = append(want, 6*mib); !slices.Equal(asked, want) {
		t.Fatalf("unknown length: covered %v, want %v", asked, want)
	}
	// W2's body (a 200 KB file, 278,520 bytes in all), W3's, and bodies
	// on either side of the first step and of maxPooledStep.
	for _, n := range []int64{5 * mib, 278_520, 28_026_423, firstStep - 1, firstStep, firstStep + 1, 2 * firstStep,
		maxPooledStep, maxPooledStep + 1, 3 * maxPooledStep / 2, 2 * maxPooledStep, 2*maxPooledStep + 1} {
		asked = nil
		if _, err := readBody(bytes.NewReader(make([]byte, n)), n, 64*mib, record); err != nil {
			t.Fatal(err)
		}
		if asked[len(asked)-1] != n || asked[0] != min(n, firstStep) {
			t.Fatalf("declared length %d: covered %v", n, asked)
		}
		var before int64
		for i, a := range asked[:len(asked)-1] {
			before += a
			switch next := asked[i+1]; {
			case next <= a || next > 2*a:
				t.Fatalf("declared length %d: covered %v: a step is not within twice the one before", n, asked)
			case a < maxPooledStep && next < n && next != 2*a:
				t.Fatalf("declared length %d: covered %v: a step under maxPooledStep is not doubled", n, asked)
			case a >= maxPooledStep && next < n && (next%firstStep != 0 || next-halvedTo(n, next) >= firstStep):
				t.Fatalf("declared length %d: covered %v: a step past maxPooledStep is not the length halved, rounded up to firstStep", n, asked)
			}
		}
		if before >= 2*n {
			t.Fatalf("declared length %d: steps of %d bytes before the body's own, want under twice the body", n, before)
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

package testkit

import (
	"sync"
	"testing"
)

// TestStartWorkersUntilStopOrDone: every worker sends until stop is
// closed, but one that answers it is done stops at once; wait returns
// every result.
func TestStartWorkersUntilStopOrDone(t *testing.T) {
	stop := make(chan struct{})
	var going sync.WaitGroup // each worker's tenth send, or worker 2's last
	going.Add(3)
	wait := StartWorkers(3, stop, func(w, i int) ([2]int, bool) {
		if w < 2 && i == 9 || w == 2 && i == 4 {
			going.Done()
		}
		return [2]int{w, i}, w != 2 || i < 4
	})
	going.Wait()
	close(stop)
	sent := map[int]int{}
	for _, r := range wait() {
		sent[r[0]]++
	}
	if sent[2] != 5 || sent[0] < 10 || sent[1] < 10 {
		t.Fatalf("sent per worker: %v; want 5 from worker 2 (it said it was done) and 10 or more from the others", sent)
	}
}

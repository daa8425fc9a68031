package testkit

import "sync"

// StartWorkers starts n workers that send load: worker w calls do(w, i)
// for i = 0, 1, … until stop is closed or do answers more = false. wait
// waits for them all and returns every result, each worker's in order.
func StartWorkers[R any](n int, stop <-chan struct{}, do func(w, i int) (r R, more bool)) (wait func() []R) {
	var (
		mu  sync.Mutex
		all []R
		wg  sync.WaitGroup
	)
	for w := range n {
		wg.Go(func() {
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				r, more := do(w, i)
				mu.Lock()
				all = append(all, r)
				mu.Unlock()
				if !more {
					return
				}
			}
		})
	}
	return func() []R {
		wg.Wait()
		return all
	}
}

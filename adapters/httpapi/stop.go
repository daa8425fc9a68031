package httpapi

import (
	"context"
	"fmt"
	"sync"
)

// reportWork tracks the reports being processed. A report runs on a
// context of its own (the partner may hang up; the report is finished
// or undone either way), so http.Server.Shutdown giving up and closing
// the connections does not end it: Stop does, and waits for it.
type reportWork struct {
	base   context.Context // parent of every report's context; cancelled by Stop
	cancel context.CancelFunc

	mu      sync.Mutex
	active  int
	stopped bool
	idle    chan struct{} // closed when active reaches 0 after Stop
}

func newReportWork() *reportWork {
	base, cancel := context.WithCancel(context.Background())
	return &reportWork{base: base, cancel: cancel}
}

// begin counts a report in; false once Stop was called.
func (w *reportWork) begin() bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.stopped {
		return false
	}
	w.active++
	return true
}

func (w *reportWork) end() {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.active--
	if w.active == 0 && w.idle != nil {
		close(w.idle)
		w.idle = nil
	}
}

// Stop refuses new reports (503), cancels those still running, and waits
// until they have returned or ctx ends. Call it after http.Server's
// Shutdown, before closing what the reports use (the store, the
// uploads). A report cancelled midway stores nothing, or its commit's
// outcome is unknown to it and its file is left for the sweep; either
// way its partner got no 200 and sends it again.
func (s *Server) Stop(ctx context.Context) error {
	w := s.work
	w.mu.Lock()
	w.stopped = true
	w.cancel()
	if w.active == 0 {
		w.mu.Unlock()
		return nil
	}
	if w.idle == nil {
		w.idle = make(chan struct{})
	}
	idle, n := w.idle, w.active
	w.mu.Unlock()
	select {
	case <-idle:
		return nil
	case <-ctx.Done():
		return fmt.Errorf("%d reports still running after they were cancelled: %w", n, ctx.Err())
	}
}

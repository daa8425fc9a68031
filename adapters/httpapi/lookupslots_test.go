package httpapi

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// heldLookup is a ReportReader whose look-ups wait until release closes,
// each saying on started that it runs; it records the deadline each got.
type heldLookup struct {
	fakeV1
	started chan string
	release chan struct{}
	mu      sync.Mutex
	left    []time.Duration
}

func (h *heldLookup) List(ctx context.Context, q ports.ListQuery) (ports.Page, error) {
	if d, ok := ctx.Deadline(); ok {
		h.mu.Lock()
		h.left = append(h.left, time.Until(d))
		h.mu.Unlock()
	}
	h.started <- q.User
	select {
	case <-h.release:
	case <-ctx.Done():
		return ports.Page{}, ctx.Err()
	}
	return ports.Page{}, nil
}

func (h *heldLookup) Get(ctx context.Context, user string, id int64) (domain.StoredReport, error) {
	if _, err := h.List(ctx, ports.ListQuery{User: user}); err != nil {
		return domain.StoredReport{}, err
	}
	rep, err := domain.DefaultCatalogue().RestoreReport(func(int, domain.Field) any { return nil })
	return domain.StoredReport{StoredReceipt: domain.StoredReceipt{ID: id}, Report: rep}, err
}

// TestLookupSlots: look-ups hold slots of their own (contract §10): one
// partner's look-ups stop at its share (503 overloaded with
// Retry-After), another partner's still run, all of them stop at the
// total, and a report is taken beside a full set of look-ups; a slot
// given back serves the next look-up. Each look-up's context ends at
// the look-up timeout.
func TestLookupSlots(t *testing.T) {
	h := newHarness(t, Limits{LookupSlots: 3, LookupSlotsPerPartner: 2, LookupTimeout: 4 * time.Second, MaxInFlight: 1})
	held := &heldLookup{started: make(chan string, 8), release: make(chan struct{})}
	h.rebuild(t, func(s *Server) { s.Validator, s.Lookup = held, held })
	acme := map[string]string{"Authorization": "Bearer good"}
	beta := map[string]string{"Authorization": "Bearer good-beta"}

	var wg sync.WaitGroup
	hold := func(header map[string]string, path string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if a := h.do(t, "GET", path, header, ""); a.status != 200 {
				t.Errorf("held look-up %s: %d %s", path, a.status, a.raw)
			}
		}()
		<-held.started
	}
	overloaded := func(name string, header map[string]string, path string) {
		t.Helper()
		a := h.do(t, "GET", path, header, "")
		if a.status != 503 || a.body["code"] != "overloaded" || a.header.Get("Retry-After") == "" {
			t.Fatalf("%s: %d %v %s; want 503 overloaded with Retry-After", name, a.status, a.header, a.raw)
		}
	}
	hold(acme, "/v1/reports?limit=1&received_from=1970-01-01")
	hold(acme, "/v1/reports/1")
	overloaded("acme's third look-up", acme, "/v1/reports")
	hold(beta, "/v1/reports")
	overloaded("beta's look-up past the total", beta, "/v1/reports")
	// Reports have slots of their own: one goes through beside them.
	if a := h.do(t, "POST", "/v1/reports", v1Headers, `{}`); a.status != 201 {
		t.Fatalf("a report beside a full set of look-ups: %d %s", a.status, a.raw)
	}
	close(held.release)
	wg.Wait()
	held.release = make(chan struct{})
	close(held.release)
	if a := h.do(t, "GET", "/v1/reports", acme, ""); a.status != 200 {
		t.Fatalf("a look-up once the slots are back: %d %s", a.status, a.raw)
	}
	<-held.started
	held.mu.Lock()
	defer held.mu.Unlock()
	for _, left := range held.left {
		if left > 4*time.Second || left < 3*time.Second {
			t.Errorf("a look-up's context ends in %s, want the look-up timeout (4s)", left)
		}
	}
}

package httpapi

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
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
// Retry-After); the others share the total, and stop at it; a partner
// with none running still gets one past the total, while fewer partners
// than the total hold such a first slot; a report is taken beside a full
// set of look-ups; a slot given back serves the next look-up. Each
// look-up's context ends at the look-up timeout.
func TestLookupSlots(t *testing.T) {
	h := newHarness(t, Limits{LookupSlots: 3, LookupSlotsPerPartner: 3, LookupTimeout: 4 * time.Second, MaxInFlight: 1})
	held := &heldLookup{started: make(chan string, 16), release: make(chan struct{})}
	h.rebuild(t, func(s *Server) { s.Validator, s.Lookup = held, held })
	bearer := func(tok string) map[string]string { return map[string]string{"Authorization": "Bearer " + tok} }
	acme, beta, gamma, delta := bearer("good"), bearer("good-beta"), bearer("good-gamma"), bearer("good-delta")

	var wg sync.WaitGroup
	t.Cleanup(func() { // before the server closes: no held look-up outlives the test
		select {
		case <-held.release:
		default:
			close(held.release)
		}
		wg.Wait()
	})
	hold := func(header map[string]string, path string) {
		t.Helper()
		answered := make(chan answer, 1)
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := h.do(t, "GET", path, header, "")
			if a.status != 200 {
				t.Errorf("held look-up %s: %d %s", path, a.status, a.raw)
			}
			answered <- a
		}()
		select {
		case <-held.started:
		case a := <-answered:
			t.Fatalf("%s %s answered %d instead of being held", header["Authorization"], path, a.status)
		}
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
	hold(acme, "/v1/reports")
	overloaded("acme's fourth look-up", acme, "/v1/reports")
	hold(beta, "/v1/reports")
	hold(beta, "/v1/reports") // the total's third
	overloaded("beta's look-up past the total", beta, "/v1/reports")
	hold(gamma, "/v1/reports") // none running: a first slot past the total
	overloaded("gamma's second look-up past the total", gamma, "/v1/reports")
	overloaded("delta's look-up, the first slots (3) held by three partners", delta, "/v1/reports")
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
	if g := h.srv.lookups; g.n != 0 || g.lanes != 0 || len(g.by) != 0 {
		t.Errorf("with no look-up running the gate holds %d shared, %d first slots, %d partners", g.n, g.lanes, len(g.by))
	}
}

// TestAPartnerWithNoLookUpGetsOne: issue 32, finding 5. Three user names
// of one partner and a second partner page back to back, each trying to
// hold three look-ups at once against 4 slots, 3 per partner: they fill
// every slot (on the base, the names took them all as three partners
// would), and yet a third partner with no look-up running gets one, and
// answers 200. The names of one partner also share its rate.
func TestAPartnerWithNoLookUpGetsOne(t *testing.T) {
	h := newHarness(t, Limits{LookupSlots: 4, LookupSlotsPerPartner: 3})
	held := &heldLookup{started: make(chan string, 32), release: make(chan struct{})}
	h.rebuild(t, func(s *Server) { s.Validator, s.Lookup = held, held })
	var wg sync.WaitGroup
	t.Cleanup(func() { close(held.release); wg.Wait() })
	refused := make(chan int, 32)
	look := func(tok string) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			a := h.do(t, "GET", "/v1/reports", map[string]string{"Authorization": "Bearer " + tok}, "")
			refused <- a.status
		}()
	}
	attempts := 0
	for _, tok := range []string{"good", "good-acme2", "good-acme3", "good-beta"} {
		for range 3 {
			look(tok)
			attempts++
		}
	}
	started, turnedAway := 0, 0
	for deadline := time.After(10 * time.Second); started+turnedAway < attempts; {
		select {
		case <-held.started:
			started++
		case status := <-refused:
			if status != 503 {
				t.Fatalf("a look-up of the flood answered %d, want held or 503", status)
			}
			turnedAway++
		case <-deadline:
			t.Fatalf("%d look-ups held and %d turned away of %d", started, turnedAway, attempts)
		}
	}
	if started != 6 {
		t.Errorf("%d look-ups of the flood held, want 6: 3 of each partner (4 shared, 2 first slots)", started)
	}
	look("good-gamma")
	select {
	case user := <-held.started:
		if user != "gamma" {
			t.Fatalf("%s's look-up started, want gamma's", user)
		}
	case status := <-refused:
		t.Fatalf("the look-up of a partner with none running, every slot held by two others: %d", status)
	case <-time.After(10 * time.Second):
		t.Fatal("the look-up of a partner with none running did not start within 10 s")
	}
}

// TestNamesOfOnePartnerShareItsRate: the look-up rate is the partner's
// too: two names of one partner, 3 look-ups a second between them.
func TestNamesOfOnePartnerShareItsRate(t *testing.T) {
	h := newHarness(t, Limits{LookupRatePerPartner: 3})
	free := &heldLookup{started: make(chan string, 16), release: make(chan struct{})}
	close(free.release)
	clock := fakes.NewClock(time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC))
	h.rebuild(t, func(s *Server) { s.Validator, s.Lookup, s.Clock = free, free, clock })
	h.srv.lookRate.maxWait = 0
	for i, tok := range []string{"good", "good-acme2", "good-acme3"} {
		if a := h.do(t, "GET", "/v1/reports", map[string]string{"Authorization": "Bearer " + tok}, ""); a.status != 200 {
			t.Fatalf("look-up %d of the partner's burst: %d %s", i+1, a.status, a.raw)
		}
	}
	if a := h.do(t, "GET", "/v1/reports", map[string]string{"Authorization": "Bearer good-acme2"}, ""); a.status != 429 {
		t.Fatalf("a fourth look-up of the partner, by another of its names, in the same second: %d %s", a.status, a.raw)
	}
	if a := h.do(t, "GET", "/v1/reports", map[string]string{"Authorization": "Bearer good-beta"}, ""); a.status != 200 {
		t.Fatalf("another partner's look-up: %d %s", a.status, a.raw)
	}
}

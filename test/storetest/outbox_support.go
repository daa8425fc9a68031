package storetest

import (
	"context"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
)

// A rule of the §11 suites: a named test that owns the store it opens.
type outboxRule struct {
	name string
	test func(t *testing.T, h OutboxHarness)
}

// runOutboxRules runs each rule as a parallel subtest on a store of its
// own.
func runOutboxRules(t *testing.T, open func(testing.TB) OutboxHarness, rules []outboxRule) {
	for _, r := range rules {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			r.test(t, open(t))
		})
	}
}

var outboxKeys atomic.Int64

// storeOutboxReport stores a minimal report of user with credit, received
// at at, under a key of its own, and returns its id.
func storeOutboxReport(t testing.TB, h OutboxHarness, user, credit string, at time.Time) int64 {
	t.Helper()
	r, rec := OutboxReport(t, user, credit, at)
	id, _, err := h.Reports.StoreReport(context.Background(), r, rec)
	if err != nil {
		t.Fatalf("StoreReport %s: %v", credit, err)
	}
	return id
}

func outboxStaged(t testing.TB, user, credit string, at time.Time) domain.StagedReport {
	t.Helper()
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(fixture.Minimal(at, credit)), fixture.FileRules(), at)
	if err != nil {
		t.Fatal(err)
	}
	return domain.StagedReport{Report: rep, ReceivedAt: at.UTC(), PartnerUser: user, PayloadSHA256: "p"}
}

func outboxRecord(user, key string, at time.Time) domain.IdempotencyRecord {
	return domain.IdempotencyRecord{User: user, KeyHash: domain.KeyHash(key, ""), PayloadSHA256: "p",
		State: domain.KeyDone, Nonce: fmt.Sprintf("%032d", outboxKeys.Add(1)), CreatedAt: at, ExpiresAt: at.Add(24 * time.Hour)}
}

// outboxNow is a receipt time: to the millisecond, as the service makes
// them.
func outboxNow() time.Time { return time.Now().UTC().Truncate(time.Millisecond) }

// allEvents lists every event of user, whatever its age, in list order.
func allEvents(t testing.TB, h OutboxHarness, user string, types ...domain.EventType) []domain.Event {
	t.Helper()
	var out []domain.Event
	f := ports.EventFilter{User: user, Types: types, Before: time.Now().Add(24 * time.Hour), Limit: 100}
	for {
		page, err := h.Events.ListEvents(context.Background(), f)
		if err != nil {
			t.Fatalf("ListEvents: %v", err)
		}
		out = append(out, page...)
		if len(page) < f.Limit {
			return out
		}
		last := page[len(page)-1]
		f.After = ports.EventPosition{CreatedAt: last.CreatedAt, Seq: last.Seq}
	}
}

// rejected is a rejection made at at.
func rejected(reason string, at time.Time) domain.Decision {
	return domain.Decision{Status: domain.StatusRejected, ReasonCode: "monto_no_coincide", Reason: reason,
		By: domain.DecidedByBackoffice("core"), At: at.UTC().Truncate(time.Millisecond)}
}

// accepted is an acceptance made at at.
func accepted(at time.Time) domain.Decision {
	return domain.Decision{Status: domain.StatusAccepted, By: domain.DecidedByCLI("ops"), At: at.UTC().Truncate(time.Millisecond)}
}

// checkOutbox fails t when the store holds a state without its event or
// an event without its state.
func checkOutbox(t testing.TB, h OutboxHarness) OutboxCount {
	t.Helper()
	c := h.Check(t)
	if c.NoEvent != 0 || c.NoState != 0 {
		t.Fatalf("outbox broken: %d states without their event, %d events without their state (%d reports, %d events)",
			c.NoEvent, c.NoState, c.Reports, c.Events)
	}
	return c
}

// StoreOutboxReport stores OutboxReport's report through h and returns
// its id; it fails t (from the test's goroutine) when it cannot.
func StoreOutboxReport(t testing.TB, h OutboxHarness, user, credit string, at time.Time) int64 {
	t.Helper()
	return storeOutboxReport(t, h, user, credit, at)
}

// OutboxReport is what storeOutboxReport stores: a minimal report of user
// received at at, and its idempotency record under a fresh key.
func OutboxReport(t testing.TB, user, credit string, at time.Time) (domain.StagedReport, domain.IdempotencyRecord) {
	t.Helper()
	return outboxStaged(t, user, credit, at), outboxRecord(user, fmt.Sprintf("outbox-%d", outboxKeys.Add(1)), at)
}

// NewEndpoint is an enabled endpoint of user taking types (all when none),
// not yet created.
func NewEndpoint(user string, types ...domain.EventType) domain.Endpoint {
	return newEndpoint(user, types...)
}

// OutboxNow is a receipt time as the service makes them.
func OutboxNow() time.Time { return outboxNow() }

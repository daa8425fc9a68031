package storetest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// RunDecisionStore holds a store to the rules of decisions and of the
// states' events (contract §11), one named test per rule.
func RunDecisionStore(t *testing.T, open func(testing.TB) OutboxHarness) {
	runOutboxRules(t, open, []outboxRule{
		{"a stored report is received, with its event", testStoredIsReceived},
		{"a replay makes no event", testReplayMakesNoEvent},
		{"a decision records its state and its event", testDecisionRecorded},
		{"a decision is final", testDecisionFinal},
		{"a rejection keeps its code and reason exactly", testRejectionKept},
		{"a decision on no report is not found", testDecisionNotFound},
		{"an event refused keeps no state", testRefusedEventKeepsNoState},
		{"the list filters by status", testListByStatus},
		{"support sees who decided and when", testArchiveShowsDecision},
		{"events of purged reports are not listed", testPurgedReportsHideEvents},
	})
}

func testStoredIsReceived(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow()
	id := storeOutboxReport(t, h, "acme", "CR-REC-1", at)
	got, err := h.Lookup.GetReport(ctx, "acme", id)
	if err != nil || got.Status != domain.StatusReceived || got.Decision != (domain.Decision{}) {
		t.Fatalf("GetReport = %+v, %v; want received, no decision", got.StoredReceipt, err)
	}
	events := allEvents(t, h, "acme")
	if len(events) != 1 {
		t.Fatalf("%d events, want report.received", len(events))
	}
	e := events[0]
	if e.Type != domain.EventReceived || !e.CreatedAt.Equal(at) || e.Receipt != got.StoredReceipt || e.PartnerUser != "acme" {
		t.Fatalf("event = %+v; want report.received at %v with the receipt %+v", e, at, got.StoredReceipt)
	}
	checkOutbox(t, h)
}

func testReplayMakesNoEvent(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow()
	r := outboxStaged(t, "acme", "CR-REPLAY", at)
	first := outboxRecord("acme", "replayed", at)
	if _, _, err := h.Reports.StoreReport(ctx, r, first); err != nil {
		t.Fatal(err)
	}
	for range 3 {
		if _, _, err := h.Reports.StoreReport(ctx, r, outboxRecord("acme", "replayed", at)); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("replay = %v; want ErrConflict", err)
		}
	}
	if n := len(allEvents(t, h, "acme")); n != 1 {
		t.Fatalf("%d events after a report and 3 replays, want 1", n)
	}
	checkOutbox(t, h)
}

func testDecisionRecorded(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow()
	id := storeOutboxReport(t, h, "acme", "CR-DEC-1", at)
	d := accepted(at.Add(time.Minute))
	got, applied, err := h.Decisions.Decide(ctx, id, d)
	if err != nil || !applied || got.Status != domain.StatusAccepted || got.Decision != d || got.ID != id {
		t.Fatalf("Decide = %+v, %v, %v; want accepted with %+v", got, applied, err, d)
	}
	read, err := h.Lookup.GetReport(ctx, "acme", id)
	if err != nil || read.StoredReceipt != got {
		t.Fatalf("GetReport after = %+v, %v; want %+v", read.StoredReceipt, err, got)
	}
	events := allEvents(t, h, "acme")
	if len(events) != 2 || events[0].Type != domain.EventReceived || events[1].Type != domain.EventAccepted {
		t.Fatalf("events = %+v; want report.received then report.accepted", events)
	}
	// Each event carries the receipt of its moment.
	if r := events[0].Receipt; r.Status != domain.StatusReceived || r.Decision != (domain.Decision{}) {
		t.Errorf("report.received's receipt = %+v; want received, no decision", r)
	}
	if e := events[1]; !e.CreatedAt.Equal(d.At) || e.Receipt != got {
		t.Errorf("report.accepted = %+v; want created at %v with %+v", e, d.At, got)
	}
	if !(events[0].ID() < events[1].ID()) {
		t.Errorf("ids %s, %s: not in the order of their times", events[0].ID(), events[1].ID())
	}
	checkOutbox(t, h)
}

func testDecisionFinal(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow()
	id := storeOutboxReport(t, h, "acme", "CR-FINAL", at)
	first := rejected("El monto no coincide", at.Add(time.Second))
	if _, applied, err := h.Decisions.Decide(ctx, id, first); err != nil || !applied {
		t.Fatalf("first decision: %v, %v", applied, err)
	}
	again := first
	again.By, again.At = domain.DecidedByCLI("someone"), at.Add(time.Hour)
	for _, d := range []domain.Decision{again, accepted(at.Add(2 * time.Hour)), rejected("otra razón", at.Add(3*time.Hour))} {
		got, applied, err := h.Decisions.Decide(ctx, id, d)
		if err != nil || applied || got.Decision != first {
			t.Fatalf("Decide(%+v) = %+v, %v, %v; want the first decision kept, unchanged", d, got.Decision, applied, err)
		}
	}
	if n := len(allEvents(t, h, "acme", domain.EventRejected, domain.EventAccepted)); n != 1 {
		t.Fatalf("%d decision events, want 1", n)
	}
	checkOutbox(t, h)
}

func testRejectionKept(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow()
	id := storeOutboxReport(t, h, "acme", "CR-REASON", at)
	// 500 characters after NFC, some of them 4 bytes long, and a line break.
	reason := strings.Repeat("ñ", 200) + "\n" + strings.Repeat("😀", 99) + strings.Repeat("x", 200)
	if n := len([]rune(reason)); n != domain.MaxReasonChars {
		t.Fatalf("reason of %d characters", n)
	}
	d := rejected(reason, at)
	if _, _, err := h.Decisions.Decide(ctx, id, d); err != nil {
		t.Fatal(err)
	}
	got, err := h.Lookup.GetReport(ctx, "acme", id)
	if err != nil || got.Decision != d || got.Status != domain.StatusRejected {
		t.Fatalf("read back: %+v, %v; want %+v", got.Decision, err, d)
	}
}

func testDecisionNotFound(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	id := storeOutboxReport(t, h, "acme", "CR-NF", outboxNow())
	for _, missing := range []int64{id + 1, id + 1000} {
		if _, _, err := h.Decisions.Decide(ctx, missing, accepted(outboxNow())); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("Decide(%d) = %v; want ErrNotFound", missing, err)
		}
	}
	if n := len(allEvents(t, h, "acme")); n != 1 {
		t.Fatalf("%d events; want only the report's", n)
	}
}

func testRefusedEventKeepsNoState(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	at := outboxNow()
	id := storeOutboxReport(t, h, "acme", "CR-REFUSE-1", at)
	h.RefuseEvents(t)
	if _, _, err := h.Reports.StoreReport(ctx, outboxStaged(t, "acme", "CR-REFUSE-2", at), outboxRecord("acme", "refused", at)); err == nil {
		t.Fatal("a report whose event is refused was stored")
	}
	if _, _, err := h.Decisions.Decide(ctx, id, accepted(at)); err == nil {
		t.Fatal("a decision whose event is refused was recorded")
	}
	got, err := h.Lookup.GetReport(ctx, "acme", id)
	if err != nil || got.Status != domain.StatusReceived {
		t.Fatalf("after the refused decision: %+v, %v; want received", got.StoredReceipt, err)
	}
	list, err := h.Lookup.ListReports(ctx, ports.ReportFilter{User: "acme", Limit: 10})
	if err != nil || len(list) != 1 {
		t.Fatalf("reports after the refused report: %d, %v; want 1", len(list), err)
	}
	if n := len(allEvents(t, h, "acme")); n != 1 {
		t.Fatalf("%d events; want only the first report's", n)
	}
	checkOutbox(t, h)
}

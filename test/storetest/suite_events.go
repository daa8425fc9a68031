package storetest

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// RunEventStore holds a store to the rules of the events' list (contract
// §11: a partner's own, oldest first, keyset pages, kept events.retention),
// one named test per rule.
func RunEventStore(t *testing.T, open func(testing.TB) OutboxHarness) {
	runOutboxRules(t, open, []outboxRule{
		{"pages hold each event once in (created_at, id) order", testEventPages},
		{"the list filters by type", testEventTypes},
		{"the list stops at its delay's bound", testEventsBefore},
		{"a partner sees only its own events", testEventsOwn},
		{"the purge takes old events with their deliveries and attempts", testPurgeEvents},
	})
}

// seedEvents stores reports of acme and other, three of acme's in one
// instant, and decides some of them at times between the others, so
// that creation times and row ids disagree; it returns acme's events in
// list order.
func seedEvents(t *testing.T, h OutboxHarness) []domain.Event {
	ctx := context.Background()
	base := outboxNow().Add(-time.Hour)
	at := func(ms int) time.Time { return base.Add(time.Duration(ms) * time.Millisecond) }
	var acme []int64
	for i, ms := range []int{10, 20, 20, 20, 30, 40, 50, 60} {
		acme = append(acme, storeOutboxReport(t, h, "acme", "CR-EV", at(ms)))
		storeOutboxReport(t, h, "other", "CR-EV", at(ms+i))
	}
	// Decided later than they were stored, at instants some reports share.
	for i, ms := range map[int]int{0: 40, 3: 15, 5: 20, 7: 70} {
		d := accepted(at(ms))
		if i%2 == 1 {
			d = rejected("no", at(ms))
		}
		if _, _, err := h.Decisions.Decide(ctx, acme[i], d); err != nil {
			t.Fatal(err)
		}
	}
	events := allEvents(t, h, "acme")
	if len(events) != 12 {
		t.Fatalf("%d events of acme, want 12", len(events))
	}
	return events
}

func testEventPages(t *testing.T, h OutboxHarness) {
	all := seedEvents(t, h)
	sorted := slices.IsSortedFunc(all, func(a, b domain.Event) int {
		return cmp.Or(a.CreatedAt.Compare(b.CreatedAt), cmp.Compare(a.Seq, b.Seq))
	})
	if !sorted {
		t.Fatalf("events out of (created_at, id) order: %+v", all)
	}
	for i := 1; i < len(all); i++ {
		if all[i-1].ID() >= all[i].ID() {
			t.Fatalf("ids %s then %s: not increasing with the list", all[i-1].ID(), all[i].ID())
		}
	}
	for _, limit := range []int{1, 2, 3, 5} {
		f := ports.EventFilter{User: "acme", Before: time.Now().Add(time.Hour), Limit: limit}
		var got []domain.Event
		for {
			page, err := h.Events.ListEvents(context.Background(), f)
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, page...)
			if len(page) < limit {
				break
			}
			f.After = ports.EventPosition{CreatedAt: page[len(page)-1].CreatedAt, Seq: page[len(page)-1].Seq}
		}
		if len(got) != len(all) {
			t.Fatalf("pages of %d: %d events, want %d", limit, len(got), len(all))
		}
		for i := range got {
			if got[i].ID() != all[i].ID() {
				t.Fatalf("pages of %d: event %d is %s, want %s", limit, i, got[i].ID(), all[i].ID())
			}
		}
	}
}

func testEventTypes(t *testing.T, h OutboxHarness) {
	all := seedEvents(t, h)
	for _, types := range [][]domain.EventType{{domain.EventReceived}, {domain.EventAccepted},
		{domain.EventRejected, domain.EventAccepted}, {domain.EventRejected, domain.EventRejected}} {
		var want []string
		for _, e := range all {
			if slices.Contains(types, e.Type) {
				want = append(want, e.ID())
			}
		}
		var got []string
		for _, e := range allEvents(t, h, "acme", types...) {
			got = append(got, e.ID())
		}
		if !slices.Equal(got, want) {
			t.Fatalf("types %v: %v, want %v", types, got, want)
		}
	}
}

func testEventsBefore(t *testing.T, h OutboxHarness) {
	all := seedEvents(t, h)
	cut := all[5].CreatedAt
	page, err := h.Events.ListEvents(context.Background(), ports.EventFilter{User: "acme", Before: cut, Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range page {
		if !e.CreatedAt.Before(cut) {
			t.Fatalf("event %s created %v listed before %v", e.ID(), e.CreatedAt, cut)
		}
	}
	n := 0
	for _, e := range all {
		if e.CreatedAt.Before(cut) {
			n++
		}
	}
	if len(page) != n || n == 0 {
		t.Fatalf("%d events before %v, want %d", len(page), cut, n)
	}
}

func testEventsOwn(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	all := seedEvents(t, h)
	for _, e := range allEvents(t, h, "other") {
		if e.PartnerUser != "other" {
			t.Fatalf("other's list holds %+v", e)
		}
	}
	e := all[3]
	p := ports.EventPosition{CreatedAt: e.CreatedAt, Seq: e.Seq}
	if got, err := h.Events.GetEvent(ctx, "acme", p); err != nil || got.ID() != e.ID() || got.Receipt != e.Receipt {
		t.Fatalf("GetEvent = %+v, %v; want %+v", got, err, e)
	}
	for _, tt := range []struct {
		user string
		p    ports.EventPosition
	}{{"other", p}, {"ACME", p}, {"acme", ports.EventPosition{CreatedAt: p.CreatedAt.Add(time.Millisecond), Seq: p.Seq}},
		{"acme", ports.EventPosition{CreatedAt: p.CreatedAt, Seq: p.Seq + 1000}}} {
		if _, err := h.Events.GetEvent(ctx, tt.user, tt.p); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("GetEvent(%q, %+v) = %v; want ErrNotFound", tt.user, tt.p, err)
		}
	}
}

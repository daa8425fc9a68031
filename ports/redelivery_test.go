package ports_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// TestRedelivery: a partner's event is made due for its own enabled
// endpoints only, and the workers are woken; an id that is not an event,
// or another partner's, is not_found; an operator's --since redelivers
// every event from then, for one endpoint when named; an endpoint id that
// is not one is refused before the store.
func TestRedelivery(t *testing.T) {
	ctx := context.Background()
	clock := fakes.NewClock(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC))
	store := fakes.NewOutbox()
	eps := store
	woken := 0
	r, err := ports.NewRedelivery(store, clock, func() { woken++ })
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range []domain.Endpoint{
		{ID: "we_aaaaaaaaaaaaaaaaaaaaaaaa", PartnerUser: "acme", Status: domain.EndpointEnabled},
		{ID: "we_bbbbbbbbbbbbbbbbbbbbbbbb", PartnerUser: "acme", Status: domain.EndpointDisabled},
		{ID: "we_cccccccccccccccccccccccc", PartnerUser: "beta", Status: domain.EndpointEnabled},
	} {
		if err := eps.CreateEndpoint(ctx, e, 5); err != nil {
			t.Fatal(i, err)
		}
	}
	mustStore(t, store, "acme", "CR-1", clock.Now())
	mustStore(t, store, "beta", "CR-2", clock.Now().Add(time.Second))
	var events []domain.Event
	for _, user := range []string{"acme", "beta"} {
		evs, err := store.ListEvents(context.Background(), ports.EventFilter{User: user, Before: clock.Now().Add(time.Hour), Limit: 10})
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, evs...)
	}
	if n, err := r.Event(ctx, "acme", events[0].ID()); n != 1 || err != nil || woken != 1 {
		t.Fatalf("acme's event: %d %v, woken %d", n, err, woken)
	}
	for _, id := range []string{events[1].ID(), "evt_nothing", ""} {
		if _, err := r.Event(ctx, "acme", id); !domain.IsKind(err, domain.ErrNotFound) {
			t.Errorf("event %q: %v, want not found", id, err)
		}
	}
	if n, err := r.Since(ctx, clock.Now(), ""); n != 2 || err != nil {
		t.Errorf("since the start: %d %v, want 2 (acme's and beta's enabled endpoints)", n, err)
	}
	if n, err := r.Since(ctx, clock.Now(), "we_cccccccccccccccccccccccc"); n != 1 || err != nil {
		t.Errorf("since the start, one endpoint: %d %v", n, err)
	}
	if _, err := r.Since(ctx, clock.Now(), "https://x"); !domain.IsKind(err, domain.ErrInvalidInput) {
		t.Errorf("a URL for an endpoint id: %v", err)
	}
	if _, err := r.Since(ctx, time.Time{}, ""); !domain.IsKind(err, domain.ErrInvalidInput) {
		t.Errorf("no time: %v", err)
	}
}

// TestOperatorEndpoints: operators list every partner's endpoints without
// secrets, and disable (with a reason its GET shows) and enable any.
func TestOperatorEndpoints(t *testing.T) {
	ctx := context.Background()
	clock := fakes.NewClock(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC))
	store := fakes.NewOutbox()
	eps := &failingEndpoints{Outbox: store}
	w, err := ports.NewWebhookEndpoints(eps, domain.NewWebhookURLRules(nil), clock, 5)
	if err != nil {
		t.Fatal(err)
	}
	e, err := w.Create(ctx, "acme", domain.EndpointRequest{URL: "https://partner.example/hook"})
	if err != nil {
		t.Fatal(err)
	}
	all, err := w.All(ctx)
	if err != nil || len(all) != 1 || all[0].Secret != "" || all[0].ID != e.ID {
		t.Fatalf("All: %+v %v", all, err)
	}
	if err := w.Disable(ctx, e.ID, ""); err != nil {
		t.Fatal(err)
	}
	got, _ := w.Get(ctx, "acme", e.ID)
	if got.Status != domain.EndpointDisabled || got.DisabledReason != ports.MsgDisabledByOperator {
		t.Errorf("disabled: %+v", got)
	}
	if err := w.Enable(ctx, e.ID); err != nil {
		t.Fatal(err)
	}
	if got, _ = w.Get(ctx, "acme", e.ID); got.Status != domain.EndpointEnabled || got.DisabledReason != "" {
		t.Errorf("enabled: %+v", got)
	}
	for _, id := range []string{"we_zzzzzzzzzzzzzzzzzzzzzzzz", "nope"} {
		if err := w.Disable(ctx, id, ""); !domain.IsKind(err, domain.ErrNotFound) {
			t.Errorf("disable %s: %v", id, err)
		}
	}
	eps.fail = errors.New("down")
	if _, err := w.All(ctx); !domain.IsKind(err, domain.ErrUnavailable) {
		t.Errorf("a failing store: %v", err)
	}
}

// failingEndpoints is the fake store whose list of every endpoint fails
// once fail is set, as a database that went away.
type failingEndpoints struct {
	*fakes.Outbox
	fail error
}

func (f *failingEndpoints) AllEndpoints(ctx context.Context) ([]domain.Endpoint, error) {
	if f.fail != nil {
		return nil, f.fail
	}
	return f.Outbox.AllEndpoints(ctx)
}

func mustStore(t *testing.T, store ports.ReportStore, user, credit string, at time.Time) {
	t.Helper()
	cat := domain.DefaultCatalogue()
	rep, err := cat.RestoreReport(func(i int, f domain.Field) any {
		if f.Partner == "Número de Crédito" {
			return credit
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := store.StoreReport(context.Background(), domain.StagedReport{PartnerUser: user, Report: rep, ReceivedAt: at},
		domain.IdempotencyRecord{User: user, KeyHash: credit}); err != nil {
		t.Fatal(err)
	}
}

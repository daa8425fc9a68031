package ports_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// TestEventPurge: the events older than the retention go, batch after
// batch, with their deliveries; a dry run counts them and deletes
// nothing; a retention of 0 is refused.
func TestEventPurge(t *testing.T) {
	ctx := context.Background()
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	store := fakes.NewOutbox()
	for i := range 7 {
		at := now.Add(-40*24*time.Hour + time.Duration(i)*time.Hour)
		if i == 6 {
			at = now.Add(-time.Hour)
		}
		rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(fixture.Minimal(at, "CR-1")), fixture.FileRules(), at)
		if err != nil {
			t.Fatal(err)
		}
		rec := domain.IdempotencyRecord{User: "acme", KeyHash: string(rune('a' + i)), Nonce: "n", State: domain.KeyDone}
		if _, _, err := store.StoreReport(ctx, domain.StagedReport{Report: rep, ReceivedAt: at, PartnerUser: "acme"}, rec); err != nil {
			t.Fatal(err)
		}
	}
	p, err := ports.NewEventPurge(store, fakes.NewClock(now), 2)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Run(ctx, 0, true); !errors.Is(err, domain.ErrInvalidInput) {
		t.Fatalf("a retention of 0 = %v; want ErrInvalidInput", err)
	}
	dry, err := p.Run(ctx, 30*24*time.Hour, false)
	if err != nil || dry.Events != 6 || store.Events() != 7 || !dry.Before.Equal(now.Add(-30*24*time.Hour)) {
		t.Fatalf("dry run = %+v, %v, %d events left; want 6 counted, none deleted", dry, err, store.Events())
	}
	got, err := p.Run(ctx, 30*24*time.Hour, true)
	if err != nil || got.Events != 6 || store.Events() != 1 {
		t.Fatalf("Run = %+v, %v, %d events left; want 6 purged, 1 left", got, err, store.Events())
	}
	if _, err := ports.NewEventPurge(store, nil, 2); err == nil {
		t.Fatal("NewEventPurge without a clock succeeded")
	}
}

package storetest

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// RunWebhookStore holds a store to the rules of webhook endpoints,
// deliveries, leases and the attempts log (contract §11), one named test
// per rule.
func RunWebhookStore(t *testing.T, open func(testing.TB) OutboxHarness) {
	runOutboxRules(t, open, []outboxRule{
		{"endpoints are the partner's own", testEndpointsOwn},
		{"a rotation keeps the previous secret until its time", testRotateSecret},
		{"operators disable and enable any endpoint", testEndpointStatus},
		{"at most max endpoints, even created at once", testEndpointMax},
		{"dispatch makes one delivery per enabled endpoint taking the type", testDispatch},
		{"a lease has one holder until it runs out", testLease},
		{"finish is fenced by the lease and logs every attempt", testFinish},
		{"the attempts log keeps the newest", testAttemptsBounded},
		{"a delivery whose endpoint went is not loaded", testLoadGone},
		{"redelivery makes deliveries due again", testRedeliver},
		{"the backlog counts pending deliveries", testBacklog},
		{"back-office clients", testBackoffice},
	})
}

// newEndpoint is an endpoint of user taking types, with fresh ids.
func newEndpoint(user string, types ...domain.EventType) domain.Endpoint {
	b := make([]byte, domain.EndpointIDRandomBytes)
	_, _ = rand.Read(b)
	k := make([]byte, domain.WebhookSecretBytes)
	_, _ = rand.Read(k)
	secret, _ := domain.NewWebhookSecret(k)
	return domain.Endpoint{ID: domain.NewEndpointID(b), PartnerUser: user, URL: "https://hooks.example.com/" + user + "/ñ?x=1",
		EventTypes: types, Description: "Recepción de " + user, Status: domain.EndpointEnabled, Secret: secret,
		CreatedAt: outboxNow()}
}

// mustEndpoint creates an endpoint of user taking types and returns it as
// the store reads it back.
func mustEndpoint(t testing.TB, h OutboxHarness, user string, types ...domain.EventType) domain.Endpoint {
	t.Helper()
	e := newEndpoint(user, types...)
	if err := h.Endpoints.CreateEndpoint(context.Background(), e, 5); err != nil {
		t.Fatalf("CreateEndpoint: %v", err)
	}
	got, err := h.Endpoints.GetEndpoint(context.Background(), user, e.ID)
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func testEndpointsOwn(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	want := newEndpoint("acme", domain.EventAccepted, domain.EventRejected)
	if err := h.Endpoints.CreateEndpoint(ctx, want, 5); err != nil {
		t.Fatal(err)
	}
	second := mustEndpoint(t, h, "acme")
	mustEndpoint(t, h, "other")
	got, err := h.Endpoints.GetEndpoint(ctx, "acme", want.ID)
	want.Seq = got.Seq
	if err != nil || got.Seq == 0 || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("GetEndpoint = %+v, %v;\nwant %+v", got, err, want)
	}
	list, err := h.Endpoints.ListEndpoints(ctx, "acme")
	if err != nil || len(list) != 2 || list[0].ID != want.ID || list[1].ID != second.ID {
		t.Fatalf("ListEndpoints = %+v, %v; want acme's two, oldest first", list, err)
	}
	for _, user := range []string{"other", "ACME", "acme "} {
		if _, err := h.Endpoints.GetEndpoint(ctx, user, want.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("GetEndpoint as %q = %v; want ErrNotFound", user, err)
		}
		if err := h.Endpoints.DeleteEndpoint(ctx, user, want.ID); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("DeleteEndpoint as %q = %v; want ErrNotFound", user, err)
		}
		if _, err := h.Endpoints.Attempts(ctx, user, want.ID, 10); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("Attempts as %q = %v; want ErrNotFound", user, err)
		}
	}
	all, err := h.Endpoints.AllEndpoints(ctx)
	if err != nil || len(all) != 3 {
		t.Fatalf("AllEndpoints = %d, %v; want 3", len(all), err)
	}
	if err := h.Endpoints.DeleteEndpoint(ctx, "acme", want.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := h.Endpoints.GetEndpoint(ctx, "acme", want.ID); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("GetEndpoint after delete = %v", err)
	}
}

func testRotateSecret(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	e := mustEndpoint(t, h, "acme")
	k := make([]byte, 40)
	_, _ = rand.Read(k)
	next, _ := domain.NewWebhookSecret(k)
	now := outboxNow()
	until := now.Add(24 * time.Hour)
	got, err := h.Endpoints.RotateSecret(ctx, "acme", e.ID, next, now, until)
	if err != nil || got.Secret != next || got.PreviousSecret != e.Secret || !got.PreviousUntil.Equal(until) {
		t.Fatalf("RotateSecret = %+v, %v; want the new secret, the old one until %v", got, err, until)
	}
	if s := got.Secrets(until.Add(-time.Second)); len(s) != 2 {
		t.Fatalf("secrets within the overlap: %d, want 2", len(s))
	}
	if _, err := h.Endpoints.RotateSecret(ctx, "other", e.ID, next, now, until); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("another partner's rotation = %v; want ErrNotFound", err)
	}
	// A second rotation while the first one's previous secret signs (a
	// retry after a lost answer, say) changes nothing: the secret the
	// receiver still holds keeps signing until its end.
	k[0]++
	third, _ := domain.NewWebhookSecret(k)
	var de *domain.Error
	if _, err := h.Endpoints.RotateSecret(ctx, "acme", e.ID, third, now.Add(time.Hour), now.Add(25*time.Hour)); !errors.Is(err, domain.ErrConflict) ||
		!errors.As(err, &de) || de.Code != "rotation_in_progress" {
		t.Fatalf("a rotation during the overlap = %v; want rotation_in_progress", err)
	}
	if kept, err := h.Endpoints.GetEndpoint(ctx, "acme", e.ID); err != nil || kept.Secret != next || kept.PreviousSecret != e.Secret || !kept.PreviousUntil.Equal(until) {
		t.Fatalf("after a refused rotation: %+v, %v; want the first rotation's secrets", kept, err)
	}
	// At the overlap's end the next rotation is made.
	if got, err := h.Endpoints.RotateSecret(ctx, "acme", e.ID, third, until, until.Add(24*time.Hour)); err != nil || got.Secret != third || got.PreviousSecret != next {
		t.Fatalf("a rotation at the overlap's end = %+v, %v; want the new secret, the second as previous", got, err)
	}
}

func testEndpointStatus(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	e := mustEndpoint(t, h, "acme")
	if err := h.Endpoints.SetEndpointStatus(ctx, e.ID, domain.EndpointDisabled, "disabled by the lender's operator"); err != nil {
		t.Fatal(err)
	}
	got, _ := h.Endpoints.GetEndpoint(ctx, "acme", e.ID)
	if got.Status != domain.EndpointDisabled || got.DisabledReason != "disabled by the lender's operator" {
		t.Fatalf("after disable: %+v", got)
	}
	for range 2 { // enabling an enabled endpoint is no error
		if err := h.Endpoints.SetEndpointStatus(ctx, e.ID, domain.EndpointEnabled, ""); err != nil {
			t.Fatal(err)
		}
	}
	if got, _ := h.Endpoints.GetEndpoint(ctx, "acme", e.ID); got.Status != domain.EndpointEnabled || got.DisabledReason != "" {
		t.Fatalf("after enable: %+v", got)
	}
	if err := h.Endpoints.SetEndpointStatus(ctx, newEndpoint("x").ID, domain.EndpointDisabled, "x"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("a missing endpoint = %v; want ErrNotFound", err)
	}
}

func testEndpointMax(t *testing.T, h OutboxHarness) {
	ctx := context.Background()
	const max = 3
	for i := range max {
		if err := h.Endpoints.CreateEndpoint(ctx, newEndpoint("acme"), max); err != nil {
			t.Fatalf("endpoint %d: %v", i+1, err)
		}
	}
	if err := h.Endpoints.CreateEndpoint(ctx, newEndpoint("acme"), max); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("endpoint %d = %v; want ErrConflict", max+1, err)
	}
	if err := h.Endpoints.CreateEndpoint(ctx, newEndpoint("other"), max); err != nil {
		t.Fatalf("another partner's first endpoint: %v", err)
	}
	list, _ := h.Endpoints.ListEndpoints(ctx, "acme")
	if err := h.Endpoints.DeleteEndpoint(ctx, "acme", list[0].ID); err != nil {
		t.Fatal(err)
	}
	// One slot free, 10 creations at once: one takes it.
	var wg sync.WaitGroup
	var mu sync.Mutex
	created := 0
	for range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			err := h.Endpoints.CreateEndpoint(ctx, newEndpoint("acme"), max)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created++
			case !errors.Is(err, domain.ErrConflict):
				t.Errorf("CreateEndpoint at once: %v", err)
			}
		}()
	}
	wg.Wait()
	if list, _ := h.Endpoints.ListEndpoints(ctx, "acme"); created != 1 || len(list) != max {
		t.Fatalf("%d created at once into one free slot, %d endpoints; want 1 and %d", created, len(list), max)
	}
}

// mustDispatch dispatches every event not yet dispatched, at now.
func mustDispatch(t testing.TB, h OutboxHarness, now time.Time) int {
	t.Helper()
	n, err := h.Deliveries.Dispatch(context.Background(), now, 1000)
	if err != nil {
		t.Fatalf("Dispatch: %v", err)
	}
	return n
}

// dueAt returns every delivery due at now.
func dueAt(t testing.TB, h OutboxHarness, now time.Time) []ports.DeliveryRef {
	t.Helper()
	due, err := h.Deliveries.Due(context.Background(), now, 1000, nil, nil, time.Time{})
	if err != nil {
		t.Fatalf("Due: %v", err)
	}
	return due
}

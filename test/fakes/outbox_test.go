package fakes_test

import (
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

// The store suites of contract §11 on the in-memory fakes.Outbox, which
// the use cases' tests run on: held to the rules the SQL store keeps.

func TestDecisionStoreFake(t *testing.T) {
	storetest.RunDecisionStore(t, storetest.FakeOutboxHarness)
}

func TestEventStoreFake(t *testing.T) {
	storetest.RunEventStore(t, storetest.FakeOutboxHarness)
}

func TestWebhookStoreFake(t *testing.T) {
	storetest.RunWebhookStore(t, storetest.FakeOutboxHarness)
}

func TestOutboxRacesFake(t *testing.T) {
	storetest.RunOutboxRaces(t, func(tb testing.TB) []storetest.OutboxHarness { return storetest.FakeOutboxReplicas(tb, 2) }, 10)
}

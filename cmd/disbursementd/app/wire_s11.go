package app

import (
	"context"
	"fmt"
	"sync"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// The wiring of contract §11: the decisions, the events, the webhook
// endpoints, redelivery and the back-office clients, on the configured
// store; the delivery workers beside them.

// s11Stores are the stores of contract §11, as the configured store
// provides them.
type s11Stores interface {
	ports.DecisionStore
	ports.EventStore
	ports.EndpointStore
	ports.BackofficeStore
	ports.RedeliveryStore
	ports.EventPurgeStore
}

// s11StoresOf returns st's stores of contract §11; false when this build's
// store has none.
//
// MERGE(issue 33, wip-s11store): once the store branch is merged,
// *gormstore.Store implements s11Stores: replace the assertion below by
// `var _ s11Stores = (*gormstore.Store)(nil)`, return st, and drop the
// false case in its callers (s11UseCases, openDecisions).
func s11StoresOf(st *gormstore.Store) (s11Stores, bool) {
	s, ok := any(st).(s11Stores)
	return s, ok
}

// webhookRules are the endpoint rules of the configuration: the hosts
// allowed http and private addresses, and the most endpoints a partner
// may have.
//
// MERGE(issue 33, wip-s11deliver): the webhooks.* settings are the
// delivery branch's (config/webhooks.go); once merged this is
// `domain.NewWebhookURLRules(cfg.Webhooks.AllowInsecureHosts),
// cfg.Webhooks.MaxEndpoints`. Until then: no insecure host, and the
// contract's 5.
func webhookRules(_ *config.Config) (domain.WebhookURLRules, int) {
	return domain.NewWebhookURLRules(nil), 5
}

// s11Cases are the use cases of contract §11; all nil when the store has
// none of its stores.
type s11Cases struct {
	decisions  *ports.Decisions
	events     *ports.Events
	endpoints  *ports.WebhookEndpoints
	redelivery *ports.Redelivery
	backoffice *ports.Backoffice
}

// s11UseCases builds the use cases of contract §11 on stores; notify
// wakes this process's delivery workers after a decision or a
// redelivery.
func s11UseCases(cfg *config.Config, stores s11Stores, clock ports.Clock, notify func()) (s11Cases, error) {
	var c s11Cases
	rules, err := cfg.Decisions.Rules()
	if err != nil {
		return c, fmt.Errorf("decisions.reason_codes: %w", err)
	}
	if c.decisions, err = ports.NewDecisions(stores, rules, clock, notify); err != nil {
		return c, err
	}
	if c.events, err = ports.NewEvents(stores, clock, cfg.Events.ListDelay); err != nil {
		return c, err
	}
	urls, most := webhookRules(cfg)
	if c.endpoints, err = ports.NewWebhookEndpoints(stores, urls, clock, most); err != nil {
		return c, err
	}
	if c.redelivery, err = ports.NewRedelivery(stores, clock, notify); err != nil {
		return c, err
	}
	c.backoffice, err = ports.NewBackoffice(stores, clock)
	return c, err
}

// deliveryWake is the delivery workers' Notify, once they are started:
// the use cases built before them call it through here.
type deliveryWake struct {
	mu     sync.Mutex
	notify func()
}

//lint:ignore U1000 startDeliveries calls it once the delivery branch is merged (DELIVERY WORKER below).
func (d *deliveryWake) set(f func()) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.notify = f
}

// wake tells the delivery workers of this process to look now; nothing
// while none runs (the next process's poll finds the event).
func (d *deliveryWake) wake() {
	d.mu.Lock()
	f := d.notify
	d.mu.Unlock()
	if f != nil {
		f()
	}
}

// startDeliveries starts this replica's delivery workers (contract §11:
// every replica delivers) and sets wake to their Notify. They run until
// bg ends, and Close stops them and waits (they are among m.closers,
// closed before the store they use).
//
// DELIVERY WORKER (issue 33, wip-s11deliver): the worker and its sender
// are the delivery branch's. Once merged, this builds them:
//
//	sender, err := webhooks.NewSender(webhooks.Options{...cfg.Webhooks...})
//	obs, err := webhooks.NewMetrics(metrics.Registerer())
//	w, err := ports.NewDeliveries(stores, sender, httpapi.EventJSON{}, m.Clock, obs, ports.DeliveryOptions{...cfg.Webhooks...})
//	m.closers = append(m.closers, sender, w)
//	m.goBackground(func() { _ = w.Run(bg) })
//	wake.set(w.Notify)
//
// Until then no worker runs here; events wait in the outbox, as they do
// while no server runs.
func (m *Main) startDeliveries(_ context.Context, _ s11Stores, _ *deliveryWake, _ *httpapi.Metrics) error {
	return nil
}

// wireS11 builds the use cases of contract §11 on the store and starts
// the delivery workers; with a store that has none of §11's stores, it
// says so and leaves them off.
func (m *Main) wireS11(bg context.Context, metrics *httpapi.Metrics) (s11Cases, error) {
	stores, ok := s11StoresOf(m.Store)
	if !ok {
		m.Log.Warn("this build's store keeps no decisions, events or webhook endpoints: /v1/events, /v1/webhook_endpoints and the decision API are off")
		return s11Cases{}, nil
	}
	wake := &deliveryWake{}
	c, err := s11UseCases(m.Config, stores, m.Clock, wake.wake)
	if err != nil {
		return c, err
	}
	return c, m.startDeliveries(bg, stores, wake, metrics)
}

// serve gives s the routes of contract §11 when c has them (never a nil
// pointer in an interface: the server tells "off" by nil).
func (c s11Cases) serve(s httpapi.Server) httpapi.Server {
	if c.decisions == nil {
		return s
	}
	s.Events, s.Redeliver, s.Endpoints = c.events, c.redelivery, c.endpoints
	s.Decisions, s.Backoffice = c.decisions, c.backoffice
	return s
}

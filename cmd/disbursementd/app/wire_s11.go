package app

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/httpapi"
	"github.com/lender/disbursementd/adapters/metrics"
	"github.com/lender/disbursementd/adapters/webhooks"
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
	ports.DeliveryStore
}

// The configured store keeps them all.
var _ s11Stores = (*gormstore.Store)(nil)

// webhookRules are the endpoint rules of the configuration: the hosts
// allowed http and private addresses, and the most endpoints a partner
// may have.
func webhookRules(cfg *config.Config) (domain.WebhookURLRules, int) {
	return domain.NewWebhookURLRules(cfg.Webhooks.AllowInsecureHosts), cfg.Webhooks.MaxEndpoints
}

// s11Cases are the use cases of contract §11.
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
// bg ends; Close stops them and waits (they are among m.closers, closed
// before the store they use, the sender after them).
func (m *Main) startDeliveries(bg context.Context, stores s11Stores, wake *deliveryWake, mx *metrics.Metrics) error {
	w := m.Config.Webhooks
	// Connections to one host are bounded by the workers alone (an
	// endpoint's share, a partner's, all of them): a bound per host would
	// let one partner's hanging endpoints on a shared receiver host (a
	// webhook platform) hold up every other partner's there.
	sender, err := webhooks.NewSender(webhooks.Options{Timeout: w.Timeout, InsecureHosts: w.AllowInsecureHosts, MaxConnsPerHost: w.Workers})
	if err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}
	m.closers = append(m.closers, sender)
	obs, err := metrics.NewDeliveries(mx.Registerer())
	if err != nil {
		return err
	}
	workers, err := ports.NewDeliveries(stores, sender, httpapi.EventJSON{}, m.Clock, obs, ports.DeliveryOptions{
		Timeout: w.Timeout, Workers: w.Workers, WorkersPerEndpoint: w.WorkersPerEndpoint, WorkersPerPartner: w.PartnerWorkers(), PollInterval: w.PollInterval,
		DisableAfter: w.DisableAfter, Schedule: w.RetrySchedule, Log: m.Log,
	})
	if err != nil {
		return fmt.Errorf("webhooks: %w", err)
	}
	m.closers = append(m.closers, workers)
	m.goBackground(func() { _ = workers.Run(bg) })
	wake.set(workers.Notify)
	return nil
}

// wireS11 builds the use cases of contract §11 on the store and starts
// this replica's delivery workers.
func (m *Main) wireS11(bg context.Context, mx *metrics.Metrics) (s11Cases, error) {
	wake := &deliveryWake{}
	c, err := s11UseCases(m.Config, m.Store, m.Clock, wake.wake)
	if err != nil {
		return c, err
	}
	if err := m.startDeliveries(bg, m.Store, wake, mx); err != nil {
		return c, err
	}
	return c, m.startSandbox(bg, c.decisions)
}

// sandboxInterval is how often a sandbox looks for reports to decide.
const sandboxInterval = time.Second

// startSandbox, on a sandbox instance (sandbox.enabled), starts the
// decisions that the magic credit numbers make, and says so in the log.
func (m *Main) startSandbox(bg context.Context, decisions *ports.Decisions) error {
	sb := m.Config.Sandbox
	if !sb.Enabled {
		return nil
	}
	s, err := ports.NewSandbox(m.Store, decisions, m.Clock, sb.DecideAfter, m.Log)
	if err != nil {
		return err
	}
	m.Log.Warn("sandbox: reports whose credit number starts with "+domain.SandboxAcceptPrefix+" or "+domain.SandboxRejectPrefix+
		" decide themselves; never run a sandbox on production's database", "decide_after", sb.DecideAfter.String())
	m.goBackground(func() { s.Run(bg, sandboxInterval) })
	return nil
}

// serve gives s the routes of contract §11.
func (c s11Cases) serve(s httpapi.Server) httpapi.Server {
	s.Events, s.Redeliver, s.Endpoints = c.events, c.redelivery, c.endpoints
	s.Decisions, s.Backoffice = c.decisions, c.backoffice
	return s
}

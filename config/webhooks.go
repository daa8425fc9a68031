package config

import (
	"net/netip"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// WebhooksConfig is the delivery of events to partners' endpoints
// (contract §11).
type WebhooksConfig struct {
	AllowInsecureHosts []string             `mapstructure:"allow_insecure_hosts" default:"" doc:"host names or addresses whose endpoint URLs may use http and private or loopback addresses (on-premise receivers, tests); every other host must be https and is connected to only at a public address, checked after DNS"`
	RetrySchedule      domain.RetrySchedule `mapstructure:"retry_schedule" default:"0s,5s,5m,30m,2h,5h,10h,10h" doc:"delay before each attempt of a delivery (the first counted from the event), Go durations, each moved +-20 %; after the last the delivery fails"`
	Timeout            time.Duration        `mapstructure:"timeout" default:"10s" doc:"one attempt, from connecting to the answer read; a 2xx within it delivers; an attempt is taken over by another replica after this + 60s"`
	DisableAfter       time.Duration        `mapstructure:"disable_after" default:"120h" doc:"an endpoint with no successful delivery for this long (since its creation, or its last success) is disabled, saying why in its GET"`
	MaxEndpoints       int                  `mapstructure:"max_endpoints" default:"5" doc:"webhook endpoints one partner may have"`
	Workers            int                  `mapstructure:"workers" default:"16" doc:"webhook attempts each replica makes at once, apart from reports and look-ups"`
	WorkersPerEndpoint int                  `mapstructure:"workers_per_endpoint" default:"2" doc:"of those, attempts to one endpoint: a hanging receiver holds no more"`
	WorkersPerPartner  int                  `mapstructure:"workers_per_partner" default:"0" doc:"of those, attempts to one partner's endpoints (a user's), so that partners whose receivers hang hold no more and the others' deliveries go on; 0: a quarter of webhooks.workers, at least webhooks.workers_per_endpoint"`
	PollInterval       time.Duration        `mapstructure:"poll_interval" default:"1s" doc:"how often each replica looks for events to deliver that another process committed (a CLI decision, another replica); at most 5s"`
}

// Bounds of the webhooks settings that no domain rule holds.
const (
	maxWebhookTimeout = 5 * time.Minute
	// maxPollInterval keeps contract §11's promise: an event's first
	// attempt within 5 s of its commit, whichever process made it.
	maxPollInterval = 5 * time.Second
	minPollInterval = 100 * time.Millisecond
	minDisableAfter = time.Hour
)

// finishWebhooks validates the webhooks section.
func (c *Config) finishWebhooks() error {
	w := &c.Webhooks
	for _, h := range w.AllowInsecureHosts {
		if !plainHost(h) {
			return keyError("webhooks.allow_insecure_hosts", "%q is not a host name or address in ASCII (no scheme, port, path or brackets; an international name in its xn-- form)", h)
		}
	}
	if err := domainRule("webhooks.retry_schedule", domain.CheckRetrySchedule(w.RetrySchedule)); err != nil {
		return err
	}
	if w.Timeout <= 0 || w.Timeout > maxWebhookTimeout {
		return keyError("webhooks.timeout", "%s, want more than 0 and at most %s", w.Timeout, maxWebhookTimeout)
	}
	if w.DisableAfter < minDisableAfter {
		return keyError("webhooks.disable_after", "%s, want at least %s", w.DisableAfter, minDisableAfter)
	}
	if w.PollInterval < minPollInterval || w.PollInterval > maxPollInterval {
		return keyError("webhooks.poll_interval", "%s, want %s to %s (an event's first attempt comes within 5s of its commit)", w.PollInterval, minPollInterval, maxPollInterval)
	}
	if err := firstErr(
		between("webhooks.max_endpoints", w.MaxEndpoints, 1, 100),
		between("webhooks.workers", w.Workers, 1, 1_024),
		between("webhooks.workers_per_endpoint", w.WorkersPerEndpoint, 1, 1_024),
	); err != nil {
		return err
	}
	if w.WorkersPerEndpoint > w.Workers {
		return keyError("webhooks.workers_per_endpoint", "%d is more than webhooks.workers (%d)", w.WorkersPerEndpoint, w.Workers)
	}
	if p := w.WorkersPerPartner; p != 0 && (p < w.WorkersPerEndpoint || p > w.Workers) {
		return keyError("webhooks.workers_per_partner", "%d, want 0 (a quarter of webhooks.workers) or from webhooks.workers_per_endpoint (%d) to webhooks.workers (%d)", p, w.WorkersPerEndpoint, w.Workers)
	}
	return nil
}

// PartnerWorkers is webhooks.workers_per_partner in effect: its value, or
// for 0 a quarter of webhooks.workers, at least webhooks.workers_per_endpoint.
func (w WebhooksConfig) PartnerWorkers() int {
	if w.WorkersPerPartner != 0 {
		return w.WorkersPerPartner
	}
	return min(w.Workers, max(w.Workers/4, w.WorkersPerEndpoint))
}

// plainHost reports whether h is what a URL's host (without port or
// brackets) can be: a name, an IPv4 address or an IPv6 address.
func plainHost(h string) bool {
	if h == "" || len(h) > 253 || strings.ContainsAny(h, "/@?#[] \t") {
		return false
	}
	for i := range len(h) {
		if h[i] >= 0x80 { // a URL's non-ASCII host is never allowed (domain.WebhookURLRules)
			return false
		}
	}
	if strings.Contains(h, ":") {
		_, err := netip.ParseAddr(h)
		return err == nil
	}
	return true
}

// parseSchedule reads a retry schedule: a YAML list or a comma-separated
// string of durations.
func parseSchedule(raw any) (any, error) {
	items, err := list(raw)
	if err != nil {
		return nil, err
	}
	s := domain.RetrySchedule{}
	for _, item := range items {
		d, err := ParseDuration(item)
		if err != nil {
			return nil, bad("%s", err)
		}
		s = append(s, d)
	}
	return s, nil
}

// displaySchedule writes a retry schedule the way the file takes it.
func displaySchedule(s domain.RetrySchedule) string {
	parts := make([]string, len(s))
	for i, d := range s {
		parts[i] = d.String()
	}
	return strings.Join(parts, ",")
}

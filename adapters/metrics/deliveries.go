package metrics

import (
	"fmt"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// The outcomes of disbursementd_webhook_deliveries_total: a fixed set.
const (
	OutcomeDelivered      = "delivered"      // a 2xx
	OutcomeFailedAttempt  = "failed_attempt" // an attempt that failed otherwise (a status, the connection, TLS)
	OutcomeTimeout        = "timeout"        // an attempt with no answer within webhooks.timeout
	OutcomeRefusedAddress = "refused_address"
	OutcomeGaveUp         = "gave_up" // a delivery failed for good
)

// Outcomes lists every outcome label.
var Outcomes = []string{OutcomeDelivered, OutcomeFailedAttempt, OutcomeTimeout, OutcomeRefusedAddress, OutcomeGaveUp}

// Deliveries is the ports.DeliveryObserver that exports the webhook
// delivery workers' metrics.
type Deliveries struct {
	deliveries  *prometheus.CounterVec
	seconds     prometheus.Histogram
	undelivered prometheus.Gauge
	oldest      prometheus.Gauge
}

var _ ports.DeliveryObserver = (*Deliveries)(nil)

// NewDeliveries registers the delivery metrics with reg (the service's
// registry: Metrics.Registerer), every outcome's series at 0.
func NewDeliveries(reg prometheus.Registerer) (*Deliveries, error) {
	if reg == nil {
		return nil, fmt.Errorf("metrics: NewDeliveries needs a registerer")
	}
	m := &Deliveries{
		deliveries: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_webhook_deliveries_total",
			Help: "Webhook attempts by outcome (delivered, failed_attempt, timeout, refused_address), and deliveries that failed for good (gave_up: the retry schedule ran out, the endpoint was disabled or deleted)."},
			[]string{"outcome"}),
		seconds: prometheus.NewHistogram(prometheus.HistogramOpts{Name: "disbursementd_webhook_attempt_seconds",
			Help:    "Time of one webhook POST, from dial to the answer read (webhooks.timeout at most).",
			Buckets: []float64{.01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30}}),
		undelivered: prometheus.NewGauge(prometheus.GaugeOpts{Name: "disbursementd_events_undelivered",
			Help: "Webhook deliveries pending (not yet delivered or failed), every replica's, as this replica last read them (every 15 s)."}),
		oldest: prometheus.NewGauge(prometheus.GaugeOpts{Name: "disbursementd_events_oldest_undelivered_seconds",
			Help: "Age of the event of the oldest pending webhook delivery (0 when none is), as this replica last read it (every 15 s)."}),
	}
	for _, c := range []prometheus.Collector{m.deliveries, m.seconds, m.undelivered, m.oldest} {
		if err := reg.Register(c); err != nil {
			return nil, fmt.Errorf("metrics: deliveries: %w", err)
		}
	}
	for _, o := range Outcomes {
		m.deliveries.WithLabelValues(o)
	}
	return m, nil
}

// Attempted counts one attempt by the outcome of its class and observes
// its time.
func (m *Deliveries) Attempted(class string, d time.Duration) {
	m.deliveries.WithLabelValues(outcome(class)).Inc()
	m.seconds.Observe(d.Seconds())
}

// outcome is the label of an attempt's class.
func outcome(class string) string {
	switch class {
	case "":
		return OutcomeDelivered
	case domain.AttemptTimeout:
		return OutcomeTimeout
	case domain.AttemptRefusedAddress:
		return OutcomeRefusedAddress
	}
	return OutcomeFailedAttempt
}

// GaveUp counts a delivery that failed for good.
func (m *Deliveries) GaveUp() { m.deliveries.WithLabelValues(OutcomeGaveUp).Inc() }

// Backlog sets the gauges of the pending deliveries.
func (m *Deliveries) Backlog(pending int64, oldest time.Duration) {
	m.undelivered.Set(float64(pending))
	m.oldest.Set(oldest.Seconds())
}

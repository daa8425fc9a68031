package metrics

import (
	"github.com/prometheus/client_golang/prometheus"
)

// The decisions and their outcomes that disbursementd_decisions_total
// counts: applied (the report's state changed, with its event), already_so
// (the same decision again: nothing changed), conflict (another decision:
// refused, 409 decision_conflict). The decision API (adapters/httpapi)
// names them so.
var (
	decisionNames    = []string{"accepted", "rejected"}
	decisionOutcomes = []string{"applied", "already_so", "conflict"}
)

// newDecisionCounter is disbursementd_decisions_total{decision,outcome},
// every series present from the start (a rate over a series that
// appears late misses its first increase).
func newDecisionCounter() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_decisions_total",
		Help: "Decisions made through the decision API (POST /admin/v1/reports/{id}/decision) on this replica, by decision (accepted, rejected) and outcome: applied (the report's state changed and its event was written), already_so (the same decision again; nothing changed), conflict (a different decision, refused with 409). Decisions of the CLI run in its own process and are not counted here."},
		[]string{"decision", "outcome"})
	for _, d := range decisionNames {
		for _, o := range decisionOutcomes {
			c.WithLabelValues(d, o)
		}
	}
	return c
}

// Decision counts one decision of the decision API by its outcome.
func (m *Metrics) Decision(decision, outcome string) {
	m.decisions.WithLabelValues(decision, outcome).Inc()
}

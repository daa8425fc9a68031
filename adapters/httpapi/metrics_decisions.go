package httpapi

import (
	"errors"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// The outcomes of a decision the decision API counts.
const (
	decisionApplied   = "applied"    // the report's state changed, with its event
	decisionAlreadySo = "already_so" // the same decision again: nothing changed
	decisionConflict  = "conflict"   // another decision: refused, 409 decision_conflict
)

// newDecisionCounter is disbursementd_decisions_total{decision,outcome},
// every series present from the start (a rate over a series that
// appears late misses its first increase).
func newDecisionCounter() *prometheus.CounterVec {
	c := prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_decisions_total",
		Help: "Decisions made through the decision API (POST /admin/v1/reports/{id}/decision) on this replica, by decision (accepted, rejected) and outcome: applied (the report's state changed and its event was written), already_so (the same decision again; nothing changed), conflict (a different decision, refused with 409). Decisions of the CLI run in its own process and are not counted here."},
		[]string{"decision", "outcome"})
	for _, d := range []domain.ReportStatus{domain.StatusAccepted, domain.StatusRejected} {
		for _, o := range []string{decisionApplied, decisionAlreadySo, decisionConflict} {
			c.WithLabelValues(string(d), o)
		}
	}
	return c
}

// countDecision counts what the decision API's Decide of decision came
// to: did when err is nil, a conflict when err is decision_conflict.
// Other failures (an invalid decision, no report, the store) are counted
// by the requests' metrics alone.
func (m *Metrics) countDecision(decision string, did ports.Decided, err error) {
	if decision != string(domain.StatusAccepted) && decision != string(domain.StatusRejected) {
		return
	}
	outcome := decisionApplied
	var de *domain.Error
	switch {
	case errors.As(err, &de) && de.Code == "decision_conflict":
		outcome = decisionConflict
	case err != nil:
		return
	case did == ports.DecisionAlreadySo:
		outcome = decisionAlreadySo
	}
	m.decisions.WithLabelValues(decision, outcome).Inc()
}

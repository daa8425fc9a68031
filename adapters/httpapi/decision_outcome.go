package httpapi

import (
	"errors"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// The outcomes of a decision the decision API counts (Meter.Decision).
const (
	decisionApplied   = "applied"    // the report's state changed, with its event
	decisionAlreadySo = "already_so" // the same decision again: nothing changed
	decisionConflict  = "conflict"   // another decision: refused, 409 decision_conflict
)

// countDecision counts what the decision API's Decide of decision came
// to: did when err is nil, a conflict when err is decision_conflict.
// Other failures (an invalid decision, no report, the store) are counted
// by the requests' metrics alone.
func (s *Server) countDecision(decision string, did ports.Decided, err error) {
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
	s.metrics.Decision(decision, outcome)
}

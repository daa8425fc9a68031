package ports

import (
	"context"
	"errors"

	"github.com/lender/disbursementd/domain"
)

// DecisionStore keeps the lender's decisions on reports (contract §11).
type DecisionStore interface {
	// Decide records d on report id when the report is received, and its
	// event (domain.EventOf(d.Status), created at d.At) in the same
	// transaction, and returns the receipt after it and true. When the
	// report is already decided nothing changes: it returns the receipt
	// with the decision it has, and false. domain.ErrNotFound when there
	// is no report id. Two decisions racing on one report, on any replica
	// or database node, record one.
	Decide(ctx context.Context, id int64, d domain.Decision) (domain.StoredReceipt, bool, error)
}

// MsgDecisionFailed is the message of a decision the store could not
// record: nothing changed, and the same decision may be sent again.
const MsgDecisionFailed = "No se pudo registrar la decisión; reintente, la misma decisión no se aplica dos veces"

// Decided says what a decision did.
type Decided int

// What a decision did: applied now, or the report already had it.
const (
	DecisionApplied Decided = iota + 1
	DecisionAlreadySo
)

// Decisions is the use case "the lender's back office decides a report"
// (CLI, CSV file, internal HTTP API): never a partner.
type Decisions struct {
	store  DecisionStore
	rules  domain.DecisionRules
	clock  Clock
	notify func()
}

// NewDecisions returns the use case on store, with the configured rules
// and clock; notify, when not nil, is called after each decision applied
// (the delivery workers of this process look at once).
func NewDecisions(store DecisionStore, rules domain.DecisionRules, clock Clock, notify func()) (*Decisions, error) {
	if store == nil || clock == nil || len(rules.Codes()) == 0 {
		return nil, errors.New("ports: NewDecisions needs a store, decision rules (domain.NewDecisionRules) and a clock")
	}
	return &Decisions{store: store, rules: rules, clock: clock, notify: notify}, nil
}

// Rules returns the decision rules (the configured reason codes).
func (s *Decisions) Rules() domain.DecisionRules { return s.rules }

// Decide makes req the decision on report id, made by by
// (domain.DecidedByBackoffice, domain.DecidedByCLI), and returns the
// report's receipt after it. The same decision again changes nothing
// (DecisionAlreadySo). Errors: domain.ErrInvalidInput (code
// invalid_decision, the problems naming each wrong member),
// domain.ErrNotFound (not_found), domain.ErrConflict (decision_conflict:
// the report has another decision, which it keeps),
// domain.ErrUnavailable (store_failed).
func (s *Decisions) Decide(ctx context.Context, id int64, req domain.DecisionRequest, by string) (domain.StoredReceipt, Decided, error) {
	d, err := s.rules.Check(req, by, s.clock.Now())
	if err != nil {
		return domain.StoredReceipt{}, 0, err
	}
	if id <= 0 {
		return domain.StoredReceipt{}, 0, domain.NewError(domain.ErrNotFound, "not_found", domain.MsgNotFound)
	}
	receipt, applied, err := s.store.Decide(ctx, id, d)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return domain.StoredReceipt{}, 0, domain.NewError(domain.ErrNotFound, "not_found", domain.MsgNotFound).WithCause(err)
	case err != nil:
		return domain.StoredReceipt{}, 0, domain.NewError(domain.ErrUnavailable, "store_failed", MsgDecisionFailed).WithCause(err)
	case applied:
		if s.notify != nil {
			s.notify()
		}
		return receipt, DecisionApplied, nil
	case receipt.Decision.Same(d):
		return receipt, DecisionAlreadySo, nil
	}
	return receipt, 0, domain.DecisionConflict(id, receipt.Status)
}

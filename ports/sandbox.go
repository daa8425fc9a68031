package ports

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"time"

	"github.com/lender/disbursementd/domain"
)

// SandboxStore finds the reports a sandbox decides by itself.
type SandboxStore interface {
	// SandboxPending returns, by id, up to limit receipts of reports still
	// received that were received at or before before and whose credit
	// number starts with domain.SandboxAcceptPrefix or
	// domain.SandboxRejectPrefix in any case.
	SandboxPending(ctx context.Context, before time.Time, limit int) ([]domain.StoredReceipt, error)
}

// sandboxBatch is how many reports one round of the sandbox decides.
const sandboxBatch = 100

// Sandbox is the use case "a sandbox instance decides by itself"
// (sandbox.enabled, issue 36): once a report with a magic credit number
// (domain.SandboxRequest) is After old, it is decided through Decisions,
// as the back office would decide it (its event, its webhooks), by
// domain.DecidedBySandbox. Every replica may run one: a decision made
// twice is the same decision, and changes nothing.
type Sandbox struct {
	store     SandboxStore
	decisions *Decisions
	clock     Clock
	after     time.Duration
	log       *slog.Logger
}

// NewSandbox returns the use case; after is how old a report is when it
// is decided (sandbox.decide_after, not below 0).
func NewSandbox(store SandboxStore, decisions *Decisions, clock Clock, after time.Duration, log *slog.Logger) (*Sandbox, error) {
	if store == nil || decisions == nil || clock == nil || after < 0 {
		return nil, errors.New("ports: NewSandbox needs a store, the decisions, a clock and a delay not below 0")
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Sandbox{store: store, decisions: decisions, clock: clock, after: after, log: log}, nil
}

// Round decides the reports that are due, up to one batch, and says how
// many it decided now.
func (s *Sandbox) Round(ctx context.Context) (int, error) {
	due, err := s.store.SandboxPending(ctx, s.clock.Now().Add(-s.after), sandboxBatch)
	if err != nil {
		return 0, fmt.Errorf("sandbox: %w", err)
	}
	n, errs := 0, []error(nil)
	for _, r := range due {
		req, ok := domain.SandboxRequest(r.CreditNumber, s.decisions.Rules().Codes())
		if !ok {
			continue
		}
		_, did, err := s.decisions.Decide(ctx, r.ID, req, domain.DecidedBySandbox)
		switch {
		case errors.Is(err, domain.ErrConflict):
			// The back office decided it otherwise first: its decision stands.
		case err != nil:
			errs = append(errs, fmt.Errorf("sandbox: report %d: %w", r.ID, err))
		case did == DecisionApplied:
			n++
			s.log.Info("sandbox: report decided by itself", "report", r.ID, "status", req.Decision, "reason_code", req.ReasonCode)
		}
	}
	return n, errors.Join(errs...)
}

// Run runs a round every interval until ctx ends; a failing round is
// logged and the next one tries again.
func (s *Sandbox) Run(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if _, err := s.Round(ctx); err != nil && ctx.Err() == nil {
			s.log.Error("sandbox: deciding the reports that decide themselves failed; trying again", "error", err.Error())
		}
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.DecisionStore = (*Store)(nil)

// decisionNames are the staging columns of a report's state and decision
// (migration 7), in the order decisionCols reads them.
const decisionNames = "status, decided_at, decided_by, reason_code, reason"

// The statements of a decision: the state changes only from received (a
// decision is final), and its event is written from the same row in the
// same transaction, created at the decision's time (or later: Decide).
const (
	decideStmt = "UPDATE " + StagingTable + " SET status = ?, decided_at = ?, decided_by = ?, reason_code = ?, reason = ?" +
		" WHERE id = ? AND status = '" + string(domain.StatusReceived) + "'"
	decisionEventStmt = "INSERT INTO " + eventsTable + " (partner_user, report_id, type, created_at, dispatched)" +
		" SELECT partner_user, id, ?, ?, 0 FROM " + StagingTable + " WHERE id = ?"
	receiptStmt = "SELECT " + receiptNames + " FROM " + StagingTable + " WHERE id = ?"
)

// Decide records d on report id when it is received, with its event, in
// one transaction (run again whole after a deadlock or a certification
// failure: two decisions racing on two Galera nodes record one), and
// returns the receipt after it and true. On a report already decided it
// changes nothing and returns its receipt and false; domain.ErrNotFound
// when there is no report id. On a Galera cluster the DSN's
// wsrep_sync_wait=1 (the operator guide's) makes its BEGIN wait until
// the node has applied what the cluster committed before, so a report
// stored through another node a moment ago is found.
func (s *Store) Decide(ctx context.Context, id int64, d domain.Decision) (domain.StoredReceipt, bool, error) {
	if !d.Status.Decided() {
		return domain.StoredReceipt{}, false, fmt.Errorf("decide report %d: %q is not a decision", id, d.Status)
	}
	var receipt domain.StoredReceipt
	var applied bool
	enter := s.clock.Now()
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		n, err := affected(ctx, tx, decideStmt, string(d.Status), d.At.UTC(), d.By, nullStr(d.ReasonCode), nullStr(d.Reason), id)
		if err != nil {
			return fmt.Errorf("record the decision: %w", err)
		}
		if applied = n == 1; applied {
			// Dated at the decision, or later by what this call waited
			// past the store's EventSlack (a lock, a busy SQLite, a run
			// again): the list delay covers the rest to the commit.
			at := domain.LateEventTime(d.At, enter, s.clock.Now(), s.eventSlack)
			if _, err := tx.ExecContext(ctx, decisionEventStmt, string(domain.EventOf(d.Status)), at.UTC(), id); err != nil {
				return fmt.Errorf("record its event: %w", err)
			}
		}
		receipt, err = readReceipt(ctx, tx, id)
		return err
	})
	if err != nil {
		return domain.StoredReceipt{}, false, fmt.Errorf("decide report %d: %w", id, err)
	}
	return receipt, applied, nil
}

// readReceipt reads report id's receipt through db; domain.ErrNotFound.
func readReceipt(ctx context.Context, db execer, id int64) (domain.StoredReceipt, error) {
	var rc receiptCols
	err := db.QueryRowContext(ctx, receiptStmt, id).Scan(rc.dest()...)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.StoredReceipt{}, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
	}
	if err != nil {
		return domain.StoredReceipt{}, fmt.Errorf("read report %d: %w", id, err)
	}
	return rc.receipt()
}

// decisionCols receives the columns of decisionNames.
type decisionCols struct {
	status, by, code, reason sql.NullString
	at                       any
}

func (dc *decisionCols) dest() []any {
	return []any{&dc.status, &dc.at, &dc.by, &dc.code, &dc.reason}
}

// read returns the state and, once decided, the decision. A state that is
// not one of the words (a hand edit) is an error, not a guess.
func (dc *decisionCols) read() (domain.ReportStatus, domain.Decision, error) {
	st, ok := domain.ParseStatus(dc.status.String)
	if !ok {
		return "", domain.Decision{}, fmt.Errorf("status %q is not a report's state", domain.Clip(dc.status.String))
	}
	if !st.Decided() {
		return st, domain.Decision{}, nil
	}
	d := domain.Decision{Status: st, ReasonCode: dc.code.String, Reason: dc.reason.String, By: dc.by.String}
	if dc.at != nil {
		at, err := storedTime(dc.at)
		if err != nil {
			return "", domain.Decision{}, fmt.Errorf("decided_at: %w", err)
		}
		d.At = at
	}
	return st, d, nil
}

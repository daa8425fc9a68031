package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.SandboxStore = (*Store)(nil)

// sandboxPendingStmt finds a sandbox's reports to decide. LIKE is
// case-insensitive for these ASCII prefixes on both engines, as
// domain.SandboxRequest is. It reads the staging table without an index
// of its own: a sandbox's tables are small, and no index is added that
// every report of a production instance would pay for.
const sandboxPendingStmt = "SELECT " + receiptNames + " FROM " + StagingTable +
	" WHERE status = '" + string(domain.StatusReceived) + "' AND received_at <= ?" +
	" AND (numero_credito LIKE '" + domain.SandboxAcceptPrefix + "%' OR numero_credito LIKE '" + domain.SandboxRejectPrefix + "%')" +
	" ORDER BY id LIMIT ?"

// SandboxPending returns, by id, up to limit receipts of reports still
// received, received at or before before, whose credit number starts
// with a sandbox's prefix.
func (s *Store) SandboxPending(ctx context.Context, before time.Time, limit int) ([]domain.StoredReceipt, error) {
	out, err := queryAll(ctx, s.read, sandboxPendingStmt, []any{before.UTC(), limit}, limit, func(rows *sql.Rows) (domain.StoredReceipt, error) {
		var rc receiptCols
		if err := rows.Scan(rc.dest()...); err != nil {
			return domain.StoredReceipt{}, err
		}
		return rc.receipt()
	})
	if err != nil {
		return nil, fmt.Errorf("sandbox's reports: %w", err)
	}
	return out, nil
}

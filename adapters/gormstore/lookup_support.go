package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.ReportArchive = (*Store)(nil)

// recordNames are the columns a ReportRecord adds to a receipt's, in the
// order recordCols reads them.
const recordNames = receiptNames + ", partner_user, partner_nit, request_id, file_size, file_sha256"

// FindReport returns report id, whoever sent it, by its primary key.
func (s *Store) FindReport(ctx context.Context, id int64) (domain.RecordedReport, error) {
	var rc recordCols
	rep, err := s.readReport(ctx, s.read, s.findQuery(), []any{id}, rc.dest())
	switch {
	case err != nil:
		return domain.RecordedReport{}, fmt.Errorf("find report %d: %w", id, err)
	case rep == nil:
		return domain.RecordedReport{}, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
	}
	rec, err := rc.record()
	if err != nil {
		return domain.RecordedReport{}, fmt.Errorf("find report %d: %w", id, err)
	}
	return domain.RecordedReport{ReportRecord: rec, Report: rep}, nil
}

// findQuery is the SELECT of FindReport.
func (s *Store) findQuery() string { return s.reportQuery(recordNames, "id = ?") }

// FindReports returns the records that match f, newest first in the
// look-ups' one order (received_at, then id), through the index that
// matches its filters (archiveQuery). f.BeforeID names the last report of
// the page before: the page goes on from its position; when that report
// is no longer stored, the page is empty.
func (s *Store) FindReports(ctx context.Context, f ports.ArchiveFilter) ([]domain.ReportRecord, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("find reports: limit %d, want > 0", f.Limit)
	}
	var before ports.ListPosition
	if f.BeforeID > 0 {
		var at any
		err := s.read.sql.QueryRowContext(ctx, "SELECT received_at FROM "+StagingTable+" WHERE id = ?", f.BeforeID).Scan(&at)
		switch {
		case errors.Is(err, sql.ErrNoRows):
			return nil, nil
		case err != nil:
			return nil, fmt.Errorf("find reports before %d: %w", f.BeforeID, err)
		}
		if before.ReceivedAt, err = exactTime(at); err != nil {
			return nil, fmt.Errorf("find reports before %d: %w", f.BeforeID, err)
		}
		before.ID = f.BeforeID
	}
	query, args, err := archiveQuery(s.driver, f, before)
	if err != nil {
		return nil, err
	}
	recs, err := queryAll(ctx, s.read, query, args, f.Limit, func(rows *sql.Rows) (domain.ReportRecord, error) {
		var rc recordCols
		if err := rows.Scan(rc.dest()...); err != nil {
			return domain.ReportRecord{}, err
		}
		return rc.record()
	})
	if err != nil {
		return nil, fmt.Errorf("find reports: %w", err)
	}
	return recs, nil
}

// lastDate is the last day a DATETIME holds on both engines.
var lastDate = time.Date(9999, 12, 31, 0, 0, 0, 0, time.UTC)

// archiveQuery is the SELECT of FindReports for driver: a keyset page
// (keyset.query), descending, before the position before (ID 0: the
// newest). With a partner it reads the index the partner's own look-up
// would (listIndex) backwards: support's view only lifts the partner
// scope. Without one: numero_credito's (migration 1; it holds the few
// rows of one credit, sorted by their receipt time), else received_at's
// (migration 2), whose entries end with the id, so that even the list of
// every partner's newest reports is a range of it stopped by the LIMIT.
// A key filter needs a partner: no index starts with the key.
func archiveQuery(driver string, f ports.ArchiveFilter, before ports.ListPosition) (string, []any, error) {
	k := keyset{driver: driver, from: f.From, to: f.To, pos: before, desc: true, limit: f.Limit}
	if k.to.IsZero() {
		// A bound every row meets makes the newest page a range of the
		// index read backwards, which the plan shows as one; unbounded,
		// the same read is a scan stopped by the LIMIT.
		k.to = lastDate
	}
	switch {
	case f.User != "":
		k.index = listIndex(f.CreditNumber, f.IdempotencyKey)
		k.conds, k.args = []string{"partner_user = ?"}, []any{f.User}
	case f.IdempotencyKey != "":
		return "", nil, errors.New("find reports: a key filter needs a partner")
	case f.CreditNumber != "":
		k.index = "ix_staging_numero_credito"
	default:
		k.index = "ix_staging_received"
	}
	k.conds, k.args = equalities(k.conds, k.args, f.CreditNumber, f.IdempotencyKey)
	query, args := k.query(recordNames)
	return query, args, nil
}

// recordCols receives the columns of recordNames.
type recordCols struct {
	receiptCols
	user                string
	nit, requestID, sha sql.NullString
	size                sql.NullInt64
}

func (rc *recordCols) dest() []any {
	return append(rc.receiptCols.dest(), &rc.user, &rc.nit, &rc.requestID, &rc.size, &rc.sha)
}

func (rc *recordCols) record() (domain.ReportRecord, error) {
	receipt, err := rc.receipt()
	if err != nil {
		return domain.ReportRecord{}, err
	}
	return domain.ReportRecord{StoredReceipt: receipt, PartnerUser: rc.user, PartnerNIT: rc.nit.String,
		RequestID: rc.requestID.String, FileSize: rc.size.Int64, FileSHA256: rc.sha.String}, nil
}

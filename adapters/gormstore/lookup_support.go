package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"math"
	"strings"

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

// FindReports returns the records that match f, newest first, through the
// index that matches its filters (archiveQuery).
func (s *Store) FindReports(ctx context.Context, f ports.ArchiveFilter) ([]domain.ReportRecord, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("find reports: limit %d, want > 0", f.Limit)
	}
	query, args, err := archiveQuery(s.driver, f)
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

// archiveQuery is the SELECT of FindReports for driver: one statement
// shape per set of filters, each read through a named index (as
// listQuery's, and for the same reason). With a partner, the partner's
// indexes; without one, numero_credito's, received_at's (migrations 1
// and 2), else the primary key. A key filter needs a partner: no index
// starts with the key. Every shape bounds the id (below BeforeID, or
// below the largest id when there is none), so that even the list of
// every partner's newest reports is a range of an index read backwards
// and stopped by the LIMIT; a date range reads every row of the range
// and sorts it by id.
func archiveQuery(driver string, f ports.ArchiveFilter) (string, []any, error) {
	dates := !f.From.IsZero() || !f.To.IsZero()
	var index string
	switch {
	case f.User != "":
		index = userIndex(f.CreditNumber != "", f.IdempotencyKey != "", dates)
	case f.IdempotencyKey != "":
		return "", nil, errors.New("find reports: a key filter needs a partner")
	case f.CreditNumber != "":
		index = "ix_staging_numero_credito"
	case dates:
		index = "ix_staging_received"
	case driver == MySQL:
		index = "PRIMARY"
	}
	hint := ""
	if index != "" {
		hint = indexHint(driver, index)
	}
	var conds []string
	var args []any
	add := func(cond string, v any) {
		conds = append(conds, cond)
		args = append(args, v)
	}
	if f.User != "" {
		add("partner_user = ?", f.User)
	}
	if f.CreditNumber != "" {
		add("numero_credito = ?", f.CreditNumber)
	}
	if f.IdempotencyKey != "" {
		add("idempotency_key = ?", f.IdempotencyKey)
	}
	if !f.From.IsZero() {
		add("received_at >= ?", f.From.UTC())
	}
	if !f.To.IsZero() {
		add("received_at < ?", f.To.UTC())
	}
	before := f.BeforeID
	if before <= 0 {
		before = math.MaxInt64
	}
	add("id < ?", before)
	query := "SELECT " + recordNames + " FROM " + StagingTable + hint + " WHERE " + strings.Join(conds, " AND ") +
		" ORDER BY id DESC LIMIT ?"
	return query, append(args, f.Limit), nil
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

package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.ReportLookup = (*Store)(nil)

// receiptNames are the columns of a receipt, in the order scanReceipt
// reads them.
const receiptNames = "id, numero_credito, file_name, received_at, idempotency_key"

// GetReport returns user's report id, found by its primary key; another
// user's report is domain.ErrNotFound, as a missing one.
func (s *Store) GetReport(ctx context.Context, user string, id int64) (domain.StoredReport, error) {
	var rc receiptCols
	rep, err := s.readReport(ctx, s.getQuery(), []any{id, user}, rc.dest())
	switch {
	case err != nil:
		return domain.StoredReport{}, fmt.Errorf("get report %d: %w", id, err)
	case rep == nil:
		return domain.StoredReport{}, fmt.Errorf("report %d of this partner: %w", id, domain.ErrNotFound)
	}
	receipt, err := rc.receipt()
	if err != nil {
		return domain.StoredReport{}, fmt.Errorf("get report %d: %w", id, err)
	}
	return domain.StoredReport{StoredReceipt: receipt, Report: rep}, nil
}

// readReport runs query, which selects the columns dest receives and then
// every field's column (reportQuery), and returns the report of its row,
// or nil when there is none.
func (s *Store) readReport(ctx context.Context, query string, args []any, dest []any) (*domain.Report, error) {
	rows, err := s.read.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	if !rows.Next() {
		return nil, rows.Err()
	}
	vals := make([]any, len(s.columns))
	for i := range vals {
		dest = append(dest, &vals[i])
	}
	if err := rows.Scan(dest...); err != nil {
		return nil, err
	}
	byIndex := make([]any, len(s.catalogue.Fields))
	for i, c := range s.columns {
		byIndex[c.index] = vals[i]
	}
	rep, err := s.catalogue.RestoreReport(func(i int, _ domain.Field) any { return byIndex[i] })
	if err != nil {
		return nil, err
	}
	return rep, rows.Err()
}

// getQuery is the SELECT of GetReport: the receipt, then every field's
// column.
func (s *Store) getQuery() string {
	return s.reportQuery(receiptNames, "id = ? AND partner_user = ?")
}

// reportQuery is a SELECT of one staging row: the columns head names, then
// every field's column, WHERE where.
func (s *Store) reportQuery(head, where string) string {
	names := make([]string, len(s.columns))
	for i, c := range s.columns {
		names[i] = c.name
	}
	return "SELECT " + head + ", " + strings.Join(names, ", ") + " FROM " + StagingTable + " WHERE " + where
}

// ListReports returns a page of f.User's receipts in id order, through
// the index that matches its filters: ix_staging_user_credit,
// ix_staging_user_key, ix_staging_user_received for a date range, else
// ix_staging_user_id (migration 4 and 1).
func (s *Store) ListReports(ctx context.Context, f ports.ReportFilter) ([]domain.StoredReceipt, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("list reports: limit %d, want > 0", f.Limit)
	}
	query, args := listQuery(s.driver, f)
	rows, err := s.read.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, fmt.Errorf("list reports: %w", err)
	}
	defer rows.Close()
	out := make([]domain.StoredReceipt, 0, min(f.Limit, 64))
	for rows.Next() {
		var rc receiptCols
		if err := rows.Scan(rc.dest()...); err != nil {
			return nil, fmt.Errorf("list reports: %w", err)
		}
		r, err := rc.receipt()
		if err != nil {
			return nil, fmt.Errorf("list reports: %w", err)
		}
		out = append(out, r)
	}
	return out, rows.Err()
}

// listQuery is the SELECT of ListReports for driver: one statement shape
// per set of filters, each read through the index named for it, which
// starts with partner_user. The index is named, not left to the planner:
// with statistics of a partner that has most of the rows, both SQLite and
// MariaDB may prefer walking the primary key in id order past every other
// partner's rows, which a skewed table turns into a scan. A date range
// reads the partner's rows of the whole range and sorts them by id.
func listQuery(driver string, f ports.ReportFilter) (string, []any) {
	index := userIndex(f.CreditNumber != "", f.IdempotencyKey != "", !f.From.IsZero() || !f.To.IsZero())
	var b strings.Builder
	b.WriteString("SELECT " + receiptNames + " FROM " + StagingTable + indexHint(driver, index) + " WHERE partner_user = ?")
	args := []any{f.User}
	add := func(cond string, v any) {
		b.WriteString(" AND " + cond)
		args = append(args, v)
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
	if f.AfterID > 0 {
		add("id > ?", f.AfterID)
	}
	b.WriteString(" ORDER BY id LIMIT ?")
	return b.String(), append(args, f.Limit)
}

// userIndex is the index of a look-up of one partner's rows, by the
// filters it has (migration 4 and 1); each starts with partner_user.
func userIndex(credit, key, dates bool) string {
	switch {
	case credit:
		return "ix_staging_user_credit"
	case key:
		return "ix_staging_user_key"
	case dates:
		return "ix_staging_user_received"
	}
	return "ix_staging_user_id"
}

// indexHint names the index a statement reads through, in driver's words.
func indexHint(driver, index string) string {
	if driver == MySQL {
		return " FORCE INDEX (" + index + ")"
	}
	return " INDEXED BY " + index
}

// receiptCols receives the columns of receiptNames.
type receiptCols struct {
	id                        int64
	credit, file, idempotency sql.NullString
	received                  any
}

func (rc *receiptCols) dest() []any {
	return []any{&rc.id, &rc.credit, &rc.file, &rc.received, &rc.idempotency}
}

func (rc *receiptCols) receipt() (domain.StoredReceipt, error) {
	at, err := storedTime(rc.received)
	if err != nil {
		return domain.StoredReceipt{}, fmt.Errorf("report %d: received_at: %w", rc.id, err)
	}
	return domain.StoredReceipt{ID: rc.id, CreditNumber: rc.credit.String, FileName: rc.file.String,
		ReceivedAt: at, IdempotencyKey: rc.idempotency.String}, nil
}

// storedTime reads a DATETIME column: a time from MySQL (parseTime) and
// from SQLite when the driver types the column, else the text SQLite
// keeps (sqliteTimeLayout). Rows stored before receipt times were kept to
// the millisecond read truncated, as newer rows are.
func storedTime(v any) (time.Time, error) {
	var t time.Time
	switch x := v.(type) {
	case time.Time:
		t = x
	case string:
		return parseStoredTime(x)
	case []byte:
		return parseStoredTime(string(x))
	default:
		return t, errors.New("not a time")
	}
	return t.UTC().Truncate(time.Millisecond), nil
}

func parseStoredTime(s string) (time.Time, error) {
	t, err := time.Parse(sqliteTimeLayout, s)
	if err != nil {
		return t, err
	}
	return t.UTC().Truncate(time.Millisecond), nil
}

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

// receiptNames are the columns of a receipt, in the order receiptCols
// reads them: the report's, then its state and decision (decisionNames).
const receiptNames = "id, numero_credito, file_name, received_at, idempotency_key, " + decisionNames

// GetReport returns user's report id, found by its primary key; another
// user's report is domain.ErrNotFound, as a missing one.
func (s *Store) GetReport(ctx context.Context, user string, id int64) (domain.StoredReport, error) {
	var rc receiptCols
	ctx, cancel := s.lookupContext(ctx)
	defer cancel()
	rep, err := s.readReport(ctx, s.look, s.getQuery(), []any{id, user}, rc.dest())
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

// ListReports returns a page of f.User's receipts in list order
// (received_at, then id), read through the index listQuery names.
func (s *Store) ListReports(ctx context.Context, f ports.ReportFilter) ([]ports.ListedReceipt, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("list reports: limit %d, want > 0", f.Limit)
	}
	query, args := listQuery(s.driver, f)
	ctx, cancel := s.lookupContext(ctx)
	defer cancel()
	out, err := queryAll(ctx, s.look, query, args, f.Limit, func(rows *sql.Rows) (ports.ListedReceipt, error) {
		var rc receiptCols
		if err := rows.Scan(rc.dest()...); err != nil {
			return ports.ListedReceipt{}, err
		}
		r, err := rc.receipt()
		if err != nil {
			return ports.ListedReceipt{}, err
		}
		at, err := exactTime(rc.received)
		if err != nil {
			return ports.ListedReceipt{}, err
		}
		return ports.ListedReceipt{StoredReceipt: r, Position: ports.ListPosition{ReceivedAt: at, ID: r.ID}}, nil
	})
	if err != nil {
		return nil, fmt.Errorf("list reports: %w", err)
	}
	return out, nil
}

// ListStatement is the statement ListReports runs for f, and its
// arguments: for EXPLAIN by an operator, and for the store suite, which
// counts the index entries it reads on a connection of its own.
func (s *Store) ListStatement(f ports.ReportFilter) (string, []any) { return listQuery(s.driver, f) }

// listQuery is the SELECT of ListReports for driver: a keyset page of
// one index read in its own order, which is the list's (contract §10).
// Each index is (partner_user[, an equality filter], received_at, id)
// (listIndex), so the rows that match the filters and follow f.After are
// a range of it, in order: the page reads at most f.Limit entries (one
// more after a cursor: see below) and sorts nothing, however many rows
// the partner has. The index is named, not left to the planner: with
// statistics of a partner that has most of the rows, both SQLite and
// MariaDB may prefer another one and sort.
//
// The lower bound is the later of f.From and f.After (a cursor from a
// page of other filters may lie before received_from). After a position
// (t, i) the rows are two adjacent ranges: received_at = t with id > i,
// then received_at > t. Neither engine seeks to (t, i) on a row value
// (t, i) < (received_at, id): both start at received_at = t and read
// every row of that instant up to the cursor. MariaDB reads
// "received_at > t OR (received_at = t AND id > i)" as the two ranges, in
// order; SQLite turns such an OR into a union that it sorts, so there
// the two ranges are two SELECTs joined by UNION ALL, the first's rows
// before the second's. The entry that ends the first range is read again
// to start the second: f.Limit + 1 entries at most.
func listQuery(driver string, f ports.ReportFilter) (string, []any) {
	after := f.After.ID > 0 && !f.After.ReceivedAt.Before(f.From)
	if after && driver == SQLite {
		at := f.After.ReceivedAt.UTC()
		same, sameArgs := listRange(driver, f, "received_at = ? AND id > ?", []any{at, f.After.ID}, "id")
		later, laterArgs := listRange(driver, f, "received_at > ?", []any{at}, "received_at, id")
		args := append(append(sameArgs, laterArgs...), f.Limit)
		return "SELECT * FROM (" + same + ") UNION ALL SELECT * FROM (" + later + ") LIMIT ?", args
	}
	switch {
	case after:
		at := f.After.ReceivedAt.UTC()
		return listRange(driver, f, "(received_at > ? OR (received_at = ? AND id > ?))", []any{at, at, f.After.ID}, "received_at, id")
	case !f.From.IsZero():
		return listRange(driver, f, "received_at >= ?", []any{f.From.UTC()}, "received_at, id")
	}
	return listRange(driver, f, "", nil, "received_at, id")
}

// listRange is one SELECT of listQuery: f's partner and equality filters,
// the lower bound from (with its arguments; "" for none), f.To, in order,
// at most f.Limit rows.
func listRange(driver string, f ports.ReportFilter, from string, fromArgs []any, order string) (string, []any) {
	var b strings.Builder
	b.WriteString("SELECT " + receiptNames + " FROM " + StagingTable + indexHint(driver, listIndex(f)) + " WHERE partner_user = ?")
	args := []any{f.User}
	add := func(cond string, v ...any) {
		b.WriteString(" AND " + cond)
		args = append(args, v...)
	}
	if f.CreditNumber != "" {
		add("numero_credito = ?", f.CreditNumber)
	}
	if f.IdempotencyKey != "" {
		add("idempotency_key = ?", f.IdempotencyKey)
	}
	if f.Status != "" {
		add("status = ?", string(f.Status))
	}
	if from != "" {
		add(from, fromArgs...)
	}
	if !f.To.IsZero() {
		add("received_at < ?", f.To.UTC())
	}
	b.WriteString(" ORDER BY " + order + " LIMIT ?")
	return b.String(), append(args, f.Limit)
}

// listIndex is the index a page of f reads (migrations 6 and 7): by
// Idempotency-Key when it has one (a key names one report, or a few once
// its record has expired; a credit number or a status beside it is
// checked on those few), by credit number when it has one (a status
// beside it is checked on the few reports of that credit: the status
// index would read every report in that state to find them), by status
// when it has one, else the partner's receipts in order.
func listIndex(f ports.ReportFilter) string {
	switch {
	case f.IdempotencyKey != "":
		return "ix_staging_user_key_received"
	case f.CreditNumber != "":
		return "ix_staging_user_credit_received"
	case f.Status != "":
		return "ix_staging_user_status_received"
	}
	return "ix_staging_user_received_id"
}

// userIndex is the index of a support look-up of one partner's rows, in
// id order, by the filters it has (archiveQuery; migrations 4 and 6);
// each starts with partner_user.
func userIndex(credit, key, dates bool) string {
	switch {
	case credit:
		return "ix_staging_user_credit"
	case key:
		return "ix_staging_user_key"
	case dates:
		return "ix_staging_user_received_id"
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
	decision                  decisionCols
}

func (rc *receiptCols) dest() []any {
	return append([]any{&rc.id, &rc.credit, &rc.file, &rc.received, &rc.idempotency}, rc.decision.dest()...)
}

func (rc *receiptCols) receipt() (domain.StoredReceipt, error) {
	at, err := storedTime(rc.received)
	if err != nil {
		return domain.StoredReceipt{}, fmt.Errorf("report %d: received_at: %w", rc.id, err)
	}
	r := domain.StoredReceipt{ID: rc.id, CreditNumber: rc.credit.String, FileName: rc.file.String,
		ReceivedAt: at, IdempotencyKey: rc.idempotency.String}
	if r.Status, r.Decision, err = rc.decision.read(); err != nil {
		return domain.StoredReceipt{}, fmt.Errorf("report %d: %w", rc.id, err)
	}
	return r, nil
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

// exactTime reads a DATETIME column as storedTime does, but not cut to
// the millisecond: a list position must name the stored value exactly,
// or a row kept with more digits would be read twice or skipped.
func exactTime(v any) (time.Time, error) {
	switch x := v.(type) {
	case time.Time:
		return x.UTC(), nil
	case string:
		t, err := time.Parse(sqliteTimeLayout, x)
		return t.UTC(), err
	case []byte:
		t, err := time.Parse(sqliteTimeLayout, string(x))
		return t.UTC(), err
	}
	return time.Time{}, errors.New("received_at: not a time")
}

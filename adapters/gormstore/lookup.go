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

// listQuery is the SELECT of ListReports for driver: a keyset page
// (keyset.query) of the index listIndex names, ascending, after f.After.
// Each index is (partner_user[, an equality filter], received_at, id), so
// the rows that match the filters and follow f.After are a range of it, in
// order (contract §10).
func listQuery(driver string, f ports.ReportFilter) (string, []any) {
	k := keyset{driver: driver, index: listIndex(f.CreditNumber, f.IdempotencyKey), conds: []string{"partner_user = ?"},
		args: []any{f.User}, from: f.From, to: f.To, pos: f.After, limit: f.Limit}
	k.conds, k.args = equalities(k.conds, k.args, f.CreditNumber, f.IdempotencyKey)
	if f.Status != "" {
		k.conds, k.args = append(k.conds, "status = ?"), append(k.args, string(f.Status))
	}
	return k.query(receiptNames)
}

// equalities adds the credit number's and the key's filters ("" for none)
// to conds and args.
func equalities(conds []string, args []any, credit, key string) ([]string, []any) {
	if credit != "" {
		conds, args = append(conds, "numero_credito = ?"), append(args, credit)
	}
	if key != "" {
		conds, args = append(conds, "idempotency_key = ?"), append(args, key)
	}
	return conds, args
}

// listIndex is the index a page of one partner's rows reads, for the
// partner's look-ups and support's alike (migration 6): by Idempotency-Key
// when it has one (a key names one report, or a few once its record has
// expired; a credit number or a status beside it is checked on those
// few), by credit number when it has one (a status beside it is checked
// on the few reports of that credit), else the partner's receipts in
// order. A status filter joins that index rather than having one of its
// own (every index on the staging table is paid by every report, and a
// decision would move its entry; migration 8 dropped migration 7's): a
// page of a status alone reads the partner's receipts in order and keeps
// those in the state, so it reads more entries than it returns when few
// are in that state. The partner's look-ups never ask for that
// (ports.ReportQueries.List checks a status itself, on a page of limit
// entries); the operator's may.
func listIndex(credit, key string) string {
	switch {
	case key != "":
		return "ix_staging_user_key_received"
	case credit != "":
		return "ix_staging_user_credit_received"
	}
	return "ix_staging_user_received_id"
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

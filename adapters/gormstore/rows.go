package gormstore

import (
	"context"
	"database/sql"

	"github.com/lender/disbursementd/domain"
)

// readReport runs query on p, which selects the columns dest receives and then
// every field's column (reportQuery), and returns the report of its row,
// or nil when there is none.
func (s *Store) readReport(ctx context.Context, p *pool, query string, args []any, dest []any) (*domain.Report, error) {
	rows, err := p.sql.QueryContext(ctx, query, args...)
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
	rep, err := s.restore(vals)
	if err != nil {
		return nil, err
	}
	return rep, rows.Err()
}

// restore is the report of a row's field columns, vals in the order of
// s.columns (reportQuery's).
func (s *Store) restore(vals []any) (*domain.Report, error) {
	byIndex := make([]any, len(s.catalogue.Fields))
	for i, c := range s.columns {
		byIndex[c.index] = vals[i]
	}
	return s.catalogue.RestoreReport(func(i int, _ domain.Field) any { return byIndex[i] })
}

// queryAll runs query on p and returns what scan makes of each row, in
// order; limit (the statement's LIMIT) sizes the slice, up to a page of
// 64 rows.
func queryAll[T any](ctx context.Context, p *pool, query string, args []any, limit int, scan func(*sql.Rows) (T, error)) ([]T, error) {
	rows, err := p.sql.QueryContext(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	out := make([]T, 0, min(limit, 64))
	for rows.Next() {
		v, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	return out, nil
}

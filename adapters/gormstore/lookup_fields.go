package gormstore

import (
	"context"
	"database/sql"
	"fmt"

	"github.com/lender/disbursementd/domain"
)

// ReportFields returns the fields of those of ids that are user's
// reports, by id: one statement by primary key (reportQuery), whatever
// the list's filters were. Another user's id, or one not stored, is left
// out, as GetReport answers it not found.
func (s *Store) ReportFields(ctx context.Context, user string, ids []int64) (map[int64]*domain.Report, error) {
	if len(ids) == 0 || len(ids) > domain.PageFieldsMax {
		return nil, fmt.Errorf("report fields: %d ids, want 1 to %d", len(ids), domain.PageFieldsMax)
	}
	args := make([]any, 0, len(ids)+1)
	for _, id := range ids {
		args = append(args, id)
	}
	args = append(args, user)
	ctx, cancel := s.lookupContext(ctx)
	defer cancel()
	type row struct {
		id  int64
		rep *domain.Report
	}
	rows, err := queryAll(ctx, s.look, s.fieldsQuery(len(ids)), args, len(ids), func(rows *sql.Rows) (row, error) {
		var r row
		vals := make([]any, len(s.columns))
		dest := []any{&r.id}
		for i := range vals {
			dest = append(dest, &vals[i])
		}
		if err := rows.Scan(dest...); err != nil {
			return r, err
		}
		rep, err := s.restore(vals)
		if err != nil {
			return r, fmt.Errorf("report %d: %w", r.id, err)
		}
		r.rep = rep
		return r, nil
	})
	if err != nil {
		return nil, fmt.Errorf("report fields: %w", err)
	}
	out := make(map[int64]*domain.Report, len(rows))
	for _, r := range rows {
		out[r.id] = r.rep
	}
	return out, nil
}

// fieldsQuery is the SELECT of ReportFields for n ids: the id, then every
// field's column, of the rows of those ids that the partner sent.
func (s *Store) fieldsQuery(n int) string {
	return s.reportQuery("id", "id IN "+inList(n)+" AND partner_user = ?")
}

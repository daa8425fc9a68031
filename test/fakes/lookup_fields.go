package fakes

import (
	"context"
	"errors"

	"github.com/lender/disbursementd/domain"
)

// ReportFields returns the fields of those of ids that are user's rows,
// as GetReport reads each.
func (m *ReportStore) ReportFields(ctx context.Context, user string, ids []int64) (map[int64]*domain.Report, error) {
	return fieldsOf(ids, func(id int64) (domain.StoredReport, error) { return m.GetReport(ctx, user, id) })
}

// ReportFields returns the fields of those of ids that are user's
// reports and not purged, as GetReport reads each.
func (o *Outbox) ReportFields(ctx context.Context, user string, ids []int64) (map[int64]*domain.Report, error) {
	return fieldsOf(ids, func(id int64) (domain.StoredReport, error) { return o.GetReport(ctx, user, id) })
}

// fieldsOf gathers get's reports of ids, leaving out those not found.
func fieldsOf(ids []int64, get func(int64) (domain.StoredReport, error)) (map[int64]*domain.Report, error) {
	out := make(map[int64]*domain.Report, len(ids))
	for _, id := range ids {
		r, err := get(id)
		switch {
		case errors.Is(err, domain.ErrNotFound):
			continue
		case err != nil:
			return nil, err
		}
		out[id] = r.Report
	}
	return out, nil
}

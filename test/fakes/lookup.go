package fakes

import (
	"context"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.ReportLookup = (*ReportStore)(nil)

// GetReport returns user's row id. Its fields go through their stored
// values (domain.StoredValue, then domain.RestoreReport of the default
// catalogue), as a database row's do.
func (m *ReportStore) GetReport(_ context.Context, user string, id int64) (domain.StoredReport, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id < 1 || id > int64(len(m.rows)) || m.rows[id-1].PartnerUser != user {
		return domain.StoredReport{}, fmt.Errorf("report %d of this partner: %w", id, domain.ErrNotFound)
	}
	r := m.rows[id-1]
	rep, err := domain.DefaultCatalogue().RestoreReport(func(i int, f domain.Field) any {
		v, ok := r.Report.At(i)
		if !ok {
			return nil
		}
		return domain.StoredValue(f, v)
	})
	if err != nil {
		return domain.StoredReport{}, err
	}
	return domain.StoredReport{StoredReceipt: receiptOf(id, r), Report: rep}, nil
}

// ListReports returns the rows of f.User that match f, by id.
func (m *ReportStore) ListReports(_ context.Context, f ports.ReportFilter) ([]domain.StoredReceipt, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("list reports: limit %d, want > 0", f.Limit)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []domain.StoredReceipt
	for i, r := range m.rows {
		id := int64(i + 1)
		switch {
		case len(out) == f.Limit:
			return out, nil
		case r.PartnerUser != f.User, id <= f.AfterID,
			f.CreditNumber != "" && r.Report.Text("numero_credito") != f.CreditNumber,
			f.IdempotencyKey != "" && r.IdempotencyKey != f.IdempotencyKey,
			!f.From.IsZero() && r.ReceivedAt.Before(f.From),
			!f.To.IsZero() && !r.ReceivedAt.Before(f.To):
			continue
		}
		out = append(out, receiptOf(id, r))
	}
	return out, nil
}

func receiptOf(id int64, r domain.StagedReport) domain.StoredReceipt {
	return domain.StoredReceipt{ID: id, CreditNumber: r.Report.Text("numero_credito"), FileName: r.FileName,
		ReceivedAt: r.ReceivedAt.UTC().Truncate(time.Millisecond), IdempotencyKey: r.IdempotencyKey}
}

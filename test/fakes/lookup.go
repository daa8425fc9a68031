package fakes

import (
	"context"
	"fmt"
	"slices"
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

// ListReports returns the rows of f.User that match f, in list order
// (receipt time, then id), after f.After.
func (m *ReportStore) ListReports(_ context.Context, f ports.ReportFilter) ([]ports.ListedReceipt, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("list reports: limit %d, want > 0", f.Limit)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ports.ListedReceipt
	for i, r := range m.rows {
		id := int64(i + 1)
		pos := ports.ListPosition{ReceivedAt: r.ReceivedAt.UTC(), ID: id}
		switch {
		case r.PartnerUser != f.User, f.After.ID > 0 && !f.After.Before(pos),
			f.CreditNumber != "" && r.Report.Text("numero_credito") != f.CreditNumber,
			f.IdempotencyKey != "" && r.IdempotencyKey != f.IdempotencyKey,
			!f.From.IsZero() && r.ReceivedAt.Before(f.From),
			!f.To.IsZero() && !r.ReceivedAt.Before(f.To):
			continue
		}
		out = append(out, ports.ListedReceipt{StoredReceipt: receiptOf(id, r), Position: pos})
	}
	slices.SortFunc(out, func(a, b ports.ListedReceipt) int {
		switch {
		case a.Position.Before(b.Position):
			return -1
		case b.Position.Before(a.Position):
			return 1
		}
		return 0
	})
	return out[:min(len(out), f.Limit)], nil
}

func receiptOf(id int64, r domain.StagedReport) domain.StoredReceipt {
	return domain.StoredReceipt{ID: id, CreditNumber: r.Report.Text("numero_credito"), FileName: r.FileName,
		ReceivedAt: r.ReceivedAt.UTC().Truncate(time.Millisecond), IdempotencyKey: r.IdempotencyKey, Status: domain.StatusReceived}
}

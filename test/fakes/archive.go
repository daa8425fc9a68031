package fakes

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.ReportArchive = (*ReportStore)(nil)

// FindReport returns row id, whoever sent it, its fields read back as
// GetReport reads them.
func (m *ReportStore) FindReport(ctx context.Context, id int64) (domain.RecordedReport, error) {
	m.mu.Lock()
	if id < 1 || id > int64(len(m.rows)) {
		m.mu.Unlock()
		return domain.RecordedReport{}, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
	}
	r := m.rows[id-1]
	m.mu.Unlock()
	stored, err := m.GetReport(ctx, r.PartnerUser, id)
	if err != nil {
		return domain.RecordedReport{}, err
	}
	return domain.RecordedReport{ReportRecord: recordOf(id, r), Report: stored.Report}, nil
}

// FindReports returns the rows that match f, newest first in list order
// (received_at, then id), before report f.BeforeID's place when it is set.
func (m *ReportStore) FindReports(_ context.Context, f ports.ArchiveFilter) ([]domain.ReportRecord, error) {
	if f.Limit <= 0 {
		return nil, fmt.Errorf("find reports: limit %d, want > 0", f.Limit)
	}
	if f.IdempotencyKey != "" && f.User == "" {
		return nil, errors.New("find reports: a key filter needs a user")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	pos := func(i int) ports.ListPosition {
		return ports.ListPosition{ReceivedAt: m.rows[i].ReceivedAt, ID: int64(i + 1)}
	}
	var before ports.ListPosition
	if f.BeforeID > 0 {
		if f.BeforeID > int64(len(m.rows)) {
			return nil, nil
		}
		before = pos(int(f.BeforeID - 1))
	}
	order := make([]int, len(m.rows))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		if pos(b).Before(pos(a)) {
			return -1
		}
		return 1
	})
	var out []domain.ReportRecord
	for _, i := range order {
		if len(out) == f.Limit {
			break
		}
		r, id := m.rows[i], int64(i+1)
		switch {
		case f.User != "" && r.PartnerUser != f.User, f.BeforeID > 0 && !pos(i).Before(before),
			f.CreditNumber != "" && r.Report.Text("numero_credito") != f.CreditNumber,
			f.IdempotencyKey != "" && r.IdempotencyKey != f.IdempotencyKey,
			!f.From.IsZero() && r.ReceivedAt.Before(f.From),
			!f.To.IsZero() && !r.ReceivedAt.Before(f.To):
			continue
		}
		out = append(out, recordOf(id, r))
	}
	return out, nil
}

func recordOf(id int64, r domain.StagedReport) domain.ReportRecord {
	return domain.ReportRecord{StoredReceipt: receiptOf(id, r), PartnerUser: r.PartnerUser, PartnerNIT: r.PartnerNIT,
		RequestID: r.RequestID, FileSize: r.FileSize, FileSHA256: r.FileSHA256}
}

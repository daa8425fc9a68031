package fakes

import (
	"context"
	"errors"
	"sort"
	"time"

	"github.com/lender/disbursementd/domain"
)

// fileEntry is a reservation (report > 0) or a tombstone (report 0) on a file
// name, as the real store keeps them in upload_files.
type fileEntry struct {
	report  int64
	at      time.Time
	checked bool
}

// TombstoneFile tombstones name unless a row has reserved it.
func (m *ReportStore) TombstoneFile(_ context.Context, name string) (bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	e, ok := m.files[name]
	switch {
	case !ok:
		m.files[name] = &fileEntry{at: time.Now(), checked: true}
		return true, nil
	case e.report == 0:
		return true, nil
	}
	return false, nil
}

// PurgedFiles returns no name: the fake store has no retention purge.
func (m *ReportStore) PurgedFiles(context.Context, []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}

// UncheckedReservations returns reservations not yet checked, created
// before before, oldest first.
func (m *ReportStore) UncheckedReservations(_ context.Context, before time.Time, limit int) ([]domain.FileRow, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []domain.FileRow
	for name, e := range m.files {
		if e.report > 0 && !e.checked && e.at.Before(before) {
			out = append(out, domain.FileRow{ID: e.report, FileName: name, ReceivedAt: e.at})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ReceivedAt.Before(out[j].ReceivedAt) })
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// MarkChecked marks reservations checked.
func (m *ReportStore) MarkChecked(_ context.Context, names []string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, n := range names {
		if e, ok := m.files[n]; ok {
			e.checked = true
		}
	}
	return nil
}

// PurgeTombstones deletes at most limit tombstones made before before.
func (m *ReportStore) PurgeTombstones(_ context.Context, before time.Time, limit int, apply bool) (int64, error) {
	if limit <= 0 {
		return 0, errors.New("purge tombstones: limit must be positive")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var n int64
	for name, e := range m.files {
		if e.report != 0 || !e.at.Before(before) {
			continue
		}
		if apply && n >= int64(limit) {
			break
		}
		n++
		if apply {
			delete(m.files, name)
		}
	}
	return n, nil
}

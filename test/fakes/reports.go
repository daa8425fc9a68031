package fakes

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// ReportStore is an in-memory ports.ReportStore and ports.SweepStore:
// the unique key is the map key; files are reserved and tombstoned under
// their name as the real store does (files.go).
type ReportStore struct {
	mu    sync.Mutex
	keys  map[string]domain.IdempotencyRecord
	rows  []domain.StagedReport
	files map[string]*fileEntry
	// Fail makes StoreReport fail before storing anything.
	Fail error
	// LostAnswer makes StoreReport store and then answer that the outcome
	// is unknown, as when the database dies during the commit.
	LostAnswer bool
	refuse     func(domain.StagedReport) error
	deleted    map[int64]bool
}

// Refuse makes StoreReport refuse the reports for which f returns an
// error, storing nothing of them, as a database constraint would.
func (m *ReportStore) Refuse(f func(domain.StagedReport) error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.refuse = f
}

var (
	_ ports.ReportStore = (*ReportStore)(nil)
	_ ports.SweepStore  = (*ReportStore)(nil)
)

// NewReportStore returns an empty store.
func NewReportStore() *ReportStore {
	return &ReportStore{keys: map[string]domain.IdempotencyRecord{}, files: map[string]*fileEntry{}}
}

// StoreReport inserts the row and its record unless the key is taken or
// the caller has given up.
func (m *ReportStore) StoreReport(ctx context.Context, r domain.StagedReport, rec domain.IdempotencyRecord) (int64, domain.IdempotencyRecord, error) {
	if err := ctx.Err(); err != nil {
		return 0, domain.IdempotencyRecord{}, fmt.Errorf("store report: %w", err)
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	k := rec.User + "/" + rec.KeyHash
	if ex, ok := m.keys[k]; ok {
		return 0, ex, fmt.Errorf("store report: %w", domain.ErrConflict)
	}
	if m.Fail != nil {
		return 0, domain.IdempotencyRecord{}, m.Fail
	}
	if m.refuse != nil {
		if err := m.refuse(r); err != nil {
			return 0, domain.IdempotencyRecord{}, fmt.Errorf("store report: %w", err)
		}
	}
	if r.FileName != "" {
		if _, taken := m.files[r.FileName]; taken {
			return 0, domain.IdempotencyRecord{}, fmt.Errorf("store report: reserve file %s: taken", r.FileName)
		}
		m.files[r.FileName] = &fileEntry{report: int64(len(m.rows) + 1), at: r.ReceivedAt}
	}
	m.rows = append(m.rows, r)
	rec.ReportID = int64(len(m.rows))
	rec.FileName = r.FileName
	m.keys[k] = rec
	if m.LostAnswer {
		return 0, domain.IdempotencyRecord{}, fmt.Errorf("commit: connection reset: %w", domain.ErrOutcomeUnknown)
	}
	return rec.ReportID, domain.IdempotencyRecord{}, nil
}

// GetKey returns a record or domain.ErrNotFound.
func (m *ReportStore) GetKey(_ context.Context, user, keyHash string) (domain.IdempotencyRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ex, ok := m.keys[user+"/"+keyHash]; ok {
		return ex, nil
	}
	return domain.IdempotencyRecord{}, fmt.Errorf("key: %w", domain.ErrNotFound)
}

// StoredReceipt returns the receipt of report id if it was stored, or is
// named by a record put by PutKey (which stands for rows stored before
// the fake: its receipt is the record's), and not deleted (DeleteReport).
func (m *ReportStore) StoredReceipt(_ context.Context, id int64) (domain.StoredReceipt, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deleted[id] {
		return domain.StoredReceipt{}, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
	}
	if id >= 1 && id <= int64(len(m.rows)) {
		return receiptOf(id, m.rows[id-1]), nil
	}
	for _, rec := range m.keys {
		if rec.ReportID == id {
			return domain.StoredReceipt{ID: id, FileName: rec.FileName, ReceivedAt: rec.CreatedAt.UTC().Truncate(time.Millisecond),
				Status: domain.StatusReceived}, nil
		}
	}
	return domain.StoredReceipt{}, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
}

// DeleteReport deletes the report id and leaves its record, as the
// retention purge does.
func (m *ReportStore) DeleteReport(id int64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.deleted == nil {
		m.deleted = map[int64]bool{}
	}
	m.deleted[id] = true
}

// DeleteKey removes the record if it is still rec.
func (m *ReportStore) DeleteKey(_ context.Context, rec domain.IdempotencyRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := rec.User + "/" + rec.KeyHash
	if ex, ok := m.keys[k]; ok && ex.Nonce == rec.Nonce && ex.State == rec.State {
		delete(m.keys, k)
	}
	return nil
}

// PutKey stores a record as is (a pending record of version 1.0.0, an
// expired record), for tests.
func (m *ReportStore) PutKey(rec domain.IdempotencyRecord) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.keys[rec.User+"/"+rec.KeyHash] = rec
}

// Ping answers.
func (m *ReportStore) Ping(context.Context) error { return nil }

// Count returns the number of rows.
func (m *ReportStore) Count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rows)
}

// Keys returns the number of idempotency records.
func (m *ReportStore) Keys() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}

// Row returns the row with id, 1-based.
func (m *ReportStore) Row(id int64) (domain.StagedReport, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if id < 1 || id > int64(len(m.rows)) {
		return domain.StagedReport{}, fmt.Errorf("row %d: %w", id, domain.ErrNotFound)
	}
	return m.rows[id-1], nil
}

// NamedFiles returns which names a row names.
func (m *ReportStore) NamedFiles(_ context.Context, names []string) (map[string]bool, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[string]bool{}
	for _, r := range m.rows {
		for _, n := range names {
			if r.FileName == n {
				out[n] = true
			}
		}
	}
	return out, nil
}

// FileRows returns rows that name a file, by id.
func (m *ReportStore) FileRows(_ context.Context, afterID int64, limit int) ([]domain.FileRow, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []domain.FileRow
	for i, r := range m.rows {
		id := int64(i + 1)
		if id > afterID && r.FileName != "" && len(out) < limit {
			out = append(out, domain.FileRow{ID: id, FileName: r.FileName, ReceivedAt: r.ReceivedAt})
		}
	}
	return out, nil
}

// PurgeKeys deletes pending records older than pendingBefore and records
// expired before expiredBefore, at most limit.
func (m *ReportStore) PurgeKeys(_ context.Context, pendingBefore, expiredBefore time.Time, limit int, apply bool) (int64, int64, error) {
	if limit <= 0 {
		return 0, 0, errors.New("purge: limit must be positive")
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	var ks []string
	for k := range m.keys {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	var pending, expired int64
	for _, k := range ks {
		rec := m.keys[k]
		isPending := rec.State == domain.KeyPending && rec.CreatedAt.Before(pendingBefore)
		isExpired := rec.ExpiresAt.Before(expiredBefore)
		if !isPending && !isExpired {
			continue
		}
		if apply && pending+expired >= int64(limit) {
			break
		}
		if isPending {
			pending++
		} else {
			expired++
		}
		if apply {
			delete(m.keys, k)
		}
	}
	return pending, expired, nil
}

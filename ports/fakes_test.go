package ports_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
)

// memStore is an in-memory ReportStore: the unique key is the map key.
type memStore struct {
	mu        sync.Mutex
	keys      map[string]domain.IdempotencyRecord
	rows      []domain.StagedReport
	commitErr error
	// lostAck: the commit happens but its answer is lost (the error is
	// returned all the same), as when the database dies at that moment.
	lostAck bool
}

func newMemStore() *memStore { return &memStore{keys: map[string]domain.IdempotencyRecord{}} }

func (m *memStore) ClaimKey(_ context.Context, rec domain.IdempotencyRecord) (domain.IdempotencyRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := rec.User + "/" + rec.KeyHash
	if ex, ok := m.keys[k]; ok {
		return ex, fmt.Errorf("claim: %w", domain.ErrConflict)
	}
	m.keys[k] = rec
	return rec, nil
}

func (m *memStore) GetKey(_ context.Context, user, keyHash string) (domain.IdempotencyRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if ex, ok := m.keys[user+"/"+keyHash]; ok {
		return ex, nil
	}
	return domain.IdempotencyRecord{}, domain.ErrNotFound
}

func (m *memStore) DeleteKey(_ context.Context, rec domain.IdempotencyRecord) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := rec.User + "/" + rec.KeyHash
	if ex, ok := m.keys[k]; ok && ex.Nonce == rec.Nonce && ex.State == rec.State {
		delete(m.keys, k)
	}
	return nil
}

func (m *memStore) CommitReport(_ context.Context, r domain.StagedReport, claim domain.IdempotencyRecord) (int64, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.commitErr != nil {
		return 0, m.commitErr
	}
	k := claim.User + "/" + claim.KeyHash
	ex, ok := m.keys[k]
	if !ok || ex.Nonce != claim.Nonce || ex.State != domain.KeyPending {
		return 0, errors.New("claim taken over")
	}
	m.rows = append(m.rows, r)
	id := int64(len(m.rows))
	ex.State, ex.ReportID, ex.FileName = domain.KeyDone, id, r.FileName
	m.keys[k] = ex
	if m.lostAck {
		return 0, errors.New("connection reset after commit")
	}
	return id, nil
}

func (m *memStore) InsertReportWithKey(_ context.Context, r domain.StagedReport, rec domain.IdempotencyRecord) (int64, domain.IdempotencyRecord, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := rec.User + "/" + rec.KeyHash
	if ex, ok := m.keys[k]; ok {
		return 0, ex, fmt.Errorf("insert: %w", domain.ErrConflict)
	}
	if m.commitErr != nil {
		return 0, domain.IdempotencyRecord{}, m.commitErr
	}
	m.rows = append(m.rows, r)
	rec.State, rec.ReportID = domain.KeyDone, int64(len(m.rows))
	m.keys[k] = rec
	return rec.ReportID, domain.IdempotencyRecord{}, nil
}

func (m *memStore) Ping(context.Context) error { return nil }

func (m *memStore) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.rows)
}

// memUploads is an in-memory UploadStore.
type memUploads struct {
	mu      sync.Mutex
	files   map[string][]byte
	saveErr error
	delay   time.Duration
}

func newMemUploads() *memUploads { return &memUploads{files: map[string][]byte{}} }

func (u *memUploads) Save(_ context.Context, credit, ext string, at time.Time, r io.Reader) (string, error) {
	time.Sleep(u.delay)
	data, err := io.ReadAll(r)
	if err != nil {
		return "", err
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.saveErr != nil {
		return "", u.saveErr
	}
	for i := 0; ; i++ {
		name := domain.FileName(credit, at.Add(time.Duration(i)*time.Millisecond), ext)
		if _, ok := u.files[name]; !ok {
			u.files[name] = data
			return name, nil
		}
	}
}

func (u *memUploads) Remove(_ context.Context, name string) error {
	u.mu.Lock()
	defer u.mu.Unlock()
	delete(u.files, name)
	return nil
}

func (u *memUploads) Check(context.Context) error { return nil }

func (u *memUploads) count() int {
	u.mu.Lock()
	defer u.mu.Unlock()
	return len(u.files)
}

// fixedClock is a settable clock.
type fixedClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fixedClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fixedClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

type idempotencyRow struct {
	ID            int64
	PartnerUser   string
	KeyHash       string
	PayloadSHA256 string `gorm:"column:payload_sha256"`
	State         string
	Nonce         string
	ReportID      *int64
	FileName      *string
	CreatedAt     time.Time
	ExpiresAt     time.Time
}

// readbackPause is the pause between reads that settle a lost commit.
const readbackPause = 100 * time.Millisecond

func (idempotencyRow) TableName() string { return "idempotency_keys" }

func (r idempotencyRow) toDomain() domain.IdempotencyRecord {
	rec := domain.IdempotencyRecord{User: r.PartnerUser, KeyHash: r.KeyHash, PayloadSHA256: r.PayloadSHA256,
		State: domain.KeyState(r.State), Nonce: r.Nonce, CreatedAt: r.CreatedAt.UTC(), ExpiresAt: r.ExpiresAt.UTC()}
	if r.ReportID != nil {
		rec.ReportID = *r.ReportID
	}
	if r.FileName != nil {
		rec.FileName = *r.FileName
	}
	return rec
}

// StoreReport inserts the staging row and its done idempotency record
// through the group commit, and answers once the batch has committed. A
// taken key answers the existing record (read after the commit) and
// ErrConflict; a failed commit is read back: our record means stored, no
// record means nothing was stored, and no answer is ErrOutcomeUnknown.
func (s *Store) StoreReport(ctx context.Context, r domain.StagedReport, rec domain.IdempotencyRecord) (int64, domain.IdempotencyRecord, error) {
	q := &request{ctx: ctx, r: r, enter: s.clock.Now(), rec: rec, done: make(chan result, 1)}
	res := s.batch.submit(ctx, q)
	switch res.kind {
	case stored:
		return res.id, domain.IdempotencyRecord{}, nil
	case conflicted:
		existing, err := s.existing(ctx, rec)
		return 0, existing, err
	case unknown:
		var ce *commitError
		if errors.As(res.err, &ce) {
			return s.settleLostCommit(ctx, rec, res.err)
		}
		// The caller gave up while its batch ran: the batch may still
		// commit, so nothing can be read back yet.
		return 0, domain.IdempotencyRecord{}, fmt.Errorf("store report: gave up during the commit (%w): %w", res.err, domain.ErrOutcomeUnknown)
	}
	return 0, domain.IdempotencyRecord{}, fmt.Errorf("store report: %w", res.err)
}

// existing answers a taken key: the record as it stands now, and
// ErrConflict; ports.ErrRecordGone when it was removed between the batch
// and this read.
func (s *Store) existing(ctx context.Context, rec domain.IdempotencyRecord) (domain.IdempotencyRecord, error) {
	existing, err := s.GetKey(ctx, rec.User, rec.KeyHash)
	if errors.Is(err, domain.ErrNotFound) {
		return domain.IdempotencyRecord{}, fmt.Errorf("store report: key taken, then its record removed: %w", ports.ErrRecordGone)
	}
	if err != nil {
		return domain.IdempotencyRecord{}, fmt.Errorf("store report: read the record that took the key: %w", err)
	}
	return existing, fmt.Errorf("store report: key taken: %w", domain.ErrConflict)
}

// settleLostCommit reads back, within a short bound, what a failed commit
// left: rec itself (stored), another record (the key was taken), or none
// (nothing stored). On MySQL the read is a locking one, so a commit the
// server is still applying is waited for, not missed.
func (s *Store) settleLostCommit(ctx context.Context, rec domain.IdempotencyRecord, commitErr error) (int64, domain.IdempotencyRecord, error) {
	rctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), s.readback)
	defer cancel()
	got, err := s.readKeyNow(rctx, rec.User, rec.KeyHash)
	for err != nil && !errors.Is(err, domain.ErrNotFound) && rctx.Err() == nil {
		// The database may be back in a moment (a restart, a failover):
		// a definite answer spares the caller an unknown outcome.
		select {
		case <-rctx.Done():
		case <-time.After(readbackPause):
			got, err = s.readKeyNow(rctx, rec.User, rec.KeyHash)
		}
	}
	switch {
	case err == nil && got.Nonce == rec.Nonce:
		return got.ReportID, domain.IdempotencyRecord{}, nil
	case err == nil:
		return 0, got, fmt.Errorf("store report: commit failed (%v) and the key is another's: %w", commitErr, domain.ErrConflict)
	case errors.Is(err, domain.ErrNotFound):
		return 0, domain.IdempotencyRecord{}, fmt.Errorf("store report: commit failed, nothing stored: %w", commitErr)
	}
	return 0, domain.IdempotencyRecord{}, fmt.Errorf("store report: commit failed (%v) and cannot be read back (%v): %w", commitErr, err, domain.ErrOutcomeUnknown)
}

// readKeyNow reads a record with a fresh statement; on MySQL it is a
// locking read, which waits for a transaction holding the record.
func (s *Store) readKeyNow(ctx context.Context, user, keyHash string) (domain.IdempotencyRecord, error) {
	return s.readKey(ctx, s.sql.readKeyLocked, user, keyHash)
}

// GetKey returns a record or domain.ErrNotFound.
func (s *Store) GetKey(ctx context.Context, user, keyHash string) (domain.IdempotencyRecord, error) {
	return s.readKey(ctx, s.sql.readKey, user, keyHash)
}

func (s *Store) readKey(ctx context.Context, query, user, keyHash string) (domain.IdempotencyRecord, error) {
	var row *sql.Row
	if s.driver == SQLite {
		st, err := s.read.stmts.get(ctx, query)
		if err != nil {
			return domain.IdempotencyRecord{}, fmt.Errorf("get idempotency key: %w", err)
		}
		row = st.QueryRowContext(ctx, user, keyHash)
	} else {
		row = s.read.sql.QueryRowContext(ctx, query, user, keyHash)
	}
	var r idempotencyRow
	err := row.Scan(&r.PartnerUser, &r.KeyHash, &r.PayloadSHA256, &r.State, &r.Nonce, &r.ReportID, &r.FileName, &r.CreatedAt, &r.ExpiresAt)
	if errors.Is(err, sql.ErrNoRows) {
		return domain.IdempotencyRecord{}, fmt.Errorf("idempotency key: %w", domain.ErrNotFound)
	}
	if err != nil {
		return domain.IdempotencyRecord{}, fmt.Errorf("get idempotency key: %w", err)
	}
	return r.toDomain(), nil
}

// StoredReceipt returns the receipt of staging row id as stored now (one
// look-up of the primary key); domain.ErrNotFound when it is gone.
func (s *Store) StoredReceipt(ctx context.Context, id int64) (domain.StoredReceipt, error) {
	var rc receiptCols
	err := s.read.orm.WithContext(ctx).Raw("SELECT "+receiptNames+" FROM "+StagingTable+" WHERE id = ?", id).Row().Scan(rc.dest()...)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return domain.StoredReceipt{}, fmt.Errorf("report %d: %w", id, domain.ErrNotFound)
	case err != nil:
		return domain.StoredReceipt{}, fmt.Errorf("receipt of report %d: %w", id, err)
	}
	return rc.receipt()
}

// DeleteKey removes the record if it is still rec, state included. A
// deadlock or certification failure (another node wrote the record at
// once) runs it again, a bounded number of times.
func (s *Store) DeleteKey(ctx context.Context, rec domain.IdempotencyRecord) error {
	var err error
	for tries := 0; ; tries++ {
		err = s.write.orm.WithContext(ctx).Where("partner_user = ? AND key_hash = ? AND nonce = ? AND state = ?", rec.User, rec.KeyHash, rec.Nonce, string(rec.State)).
			Delete(&idempotencyRow{}).Error
		if err == nil || !isConflict(err) || tries >= maxBatchRetries || !pause(ctx, tries) {
			break
		}
	}
	if err != nil {
		return fmt.Errorf("delete idempotency key: %w", err)
	}
	return nil
}

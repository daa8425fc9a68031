package ports

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Reports is the use case "a partner reports a disbursement": map and
// validate, claim the idempotency key, save the file durably, commit the
// row, and answer. A report is acknowledged only when both the row and the
// file are kept; when either fails the other is undone.
type Reports struct {
	Catalogue *domain.Catalogue
	Rules     domain.FileRules
	Store     ReportStore
	Uploads   UploadStore
	Clock     Clock
	KeyTTL    time.Duration // how long a key is remembered (≥ 24 h)
	Wait      time.Duration // how long a duplicate waits for the first
	Poll      time.Duration // how often a waiting duplicate looks again
	// Stale is the age after which a pending claim is taken for the claim
	// of a request that died; it must exceed the longest a report can take
	// (http.report_timeout). 0 means twice Wait.
	Stale time.Duration
}

// Submission is one POST of a report.
type Submission struct {
	Principal      Principal
	Members        []domain.RawField
	PayloadSHA256  string // hex SHA-256 of the raw body
	IdempotencyKey string // "" when the header was absent
	RequestID      string
}

// ValidIdempotencyKey checks an Idempotency-Key: 1 to 255 printable ASCII.
func ValidIdempotencyKey(k string) bool {
	if len(k) < 1 || len(k) > 255 {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return false
		}
	}
	return true
}

// KeyHash scopes the key: a header key and a body hash never match.
func KeyHash(idempotencyKey, payloadSHA256 string) string {
	var h [32]byte
	if idempotencyKey != "" {
		h = sha256.Sum256([]byte("key:" + idempotencyKey))
	} else {
		h = sha256.Sum256([]byte("body:" + payloadSHA256))
	}
	return hex.EncodeToString(h[:])
}

func storeFailed(err error) error {
	return domain.NewError(domain.ErrUnavailable, "store_failed", domain.MsgStoreFailed).WithCause(err)
}

// Submit stores a report once. Errors: domain.ErrInvalidInput (with the
// problems), domain.ErrTooLarge, domain.ErrKeyReused, domain.ErrInProgress,
// domain.ErrUnavailable.
func (s *Reports) Submit(ctx context.Context, sub Submission) (domain.Receipt, error) {
	now := s.Clock.Now().UTC()
	if sub.IdempotencyKey != "" && !ValidIdempotencyKey(sub.IdempotencyKey) {
		return domain.Receipt{}, domain.NewError(domain.ErrInvalidInput, "invalid_idempotency_key",
			"Idempotency-Key inválida: de 1 a 255 caracteres ASCII imprimibles")
	}
	rep, err := s.Catalogue.MapReport(sub.Members, s.Rules, now)
	if err != nil {
		return domain.Receipt{}, err
	}
	keyHash := KeyHash(sub.IdempotencyKey, sub.PayloadSHA256)
	rec := domain.IdempotencyRecord{
		User: sub.Principal.User, KeyHash: keyHash, PayloadSHA256: sub.PayloadSHA256,
		State: domain.KeyPending, Nonce: NewID(), CreatedAt: now, ExpiresAt: now.Add(s.KeyTTL),
	}
	staged := domain.StagedReport{
		Report: rep, ReceivedAt: now, PartnerUser: sub.Principal.User, PartnerNIT: sub.Principal.NIT,
		RequestID: sub.RequestID, IdempotencyKey: sub.IdempotencyKey, PayloadSHA256: sub.PayloadSHA256,
	}
	if rep.File == nil {
		return s.submitWithoutFile(ctx, staged, rec)
	}
	return s.submitWithFile(ctx, staged, rec)
}

// submitWithFile claims the key first, so that a duplicate never writes a
// second file, then saves the file durably and commits the row; a failure
// of either undoes the other and releases the key for a retry.
func (s *Reports) submitWithFile(ctx context.Context, staged domain.StagedReport, rec domain.IdempotencyRecord) (domain.Receipt, error) {
	if receipt, done, err := s.claim(ctx, rec); err != nil || done {
		return receipt, err
	}
	release := func() { s.release(context.WithoutCancel(ctx), rec) }
	f := staged.Report.File
	name, err := s.Uploads.Save(ctx, staged.Report.String("numero_credito"), f.Ext, staged.ReceivedAt, f.Reader())
	if err != nil {
		release()
		return domain.Receipt{}, domain.NewError(domain.ErrUnavailable, "file_store_failed", domain.MsgFileFailed).WithCause(err)
	}
	staged.FileName, staged.FileSize, staged.FileSHA256 = name, f.Size, hex.EncodeToString(f.SHA256[:])
	id, err := s.Store.CommitReport(ctx, staged, rec)
	if err != nil {
		if done, ok := s.committedAnyway(ctx, rec); ok {
			// The commit went through and only its answer was lost.
			return domain.Receipt{ReportID: done.ReportID, FileName: done.FileName, FileSize: staged.FileSize}, nil
		}
		if rmErr := s.Uploads.Remove(context.WithoutCancel(ctx), name); rmErr != nil {
			err = errors.Join(err, fmt.Errorf("remove orphan file: %w", rmErr))
		}
		release()
		return domain.Receipt{}, storeFailed(err)
	}
	return domain.Receipt{ReportID: id, FileName: name, FileSize: staged.FileSize}, nil
}

// claim takes the idempotency key. done is true when an earlier identical
// submission already answered; the receipt is then its answer.
func (s *Reports) claim(ctx context.Context, rec domain.IdempotencyRecord) (domain.Receipt, bool, error) {
	return s.settle(ctx, rec, func() (domain.IdempotencyRecord, error) { return s.Store.ClaimKey(ctx, rec) })
}

// settle runs attempt, which takes the key for rec (and may do more in the
// same transaction), until it succeeds or an earlier submission with the
// same key decides the answer: the first answer again (done), a reused
// key, or, while the first is still at work past the wait bound, 409.
func (s *Reports) settle(ctx context.Context, rec domain.IdempotencyRecord, attempt func() (domain.IdempotencyRecord, error)) (domain.Receipt, bool, error) {
	deadline := rec.CreatedAt.Add(s.Wait)
	for retries := 0; retries < 10; {
		existing, err := attempt()
		if err == nil {
			return domain.Receipt{}, false, nil
		}
		if !errors.Is(err, domain.ErrConflict) {
			return domain.Receipt{}, false, storeFailed(err)
		}
		now := s.Clock.Now()
		switch {
		case !existing.ExpiresAt.After(now):
			// Remembered long enough: forget it and store anew.
			if err := s.Store.DeleteKey(ctx, existing); err != nil {
				return domain.Receipt{}, false, storeFailed(err)
			}
			retries++
			continue
		case existing.PayloadSHA256 != rec.PayloadSHA256:
			return domain.Receipt{}, false, domain.NewError(domain.ErrKeyReused, "idempotency_key_reused",
				"Idempotency-Key ya usada con otro contenido; use una clave nueva para un reporte distinto")
		case existing.State == domain.KeyDone:
			return domain.Receipt{ReportID: existing.ReportID, FileName: existing.FileName, Replayed: true}, true, nil
		case existing.CreatedAt.Add(s.stale()).Before(now):
			// A claim older than the wait bound belongs to a request that
			// died: take it over.
			if err := s.Store.DeleteKey(ctx, existing); err != nil {
				return domain.Receipt{}, false, storeFailed(err)
			}
			retries++
			continue
		}
		if !now.Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return domain.Receipt{}, false, storeFailed(ctx.Err())
		case <-time.After(s.Poll):
		}
	}
	return domain.Receipt{}, false, domain.NewError(domain.ErrInProgress, "request_in_progress",
		"Un reporte idéntico se está procesando; reintente en unos segundos")
}

// submitWithoutFile stores a report that has no file in one transaction
// with its idempotency record (one commit instead of two): there is no
// file to keep from being written twice, so no pending claim is needed. A
// concurrent duplicate waits on the unique key and then replays.
func (s *Reports) submitWithoutFile(ctx context.Context, staged domain.StagedReport, rec domain.IdempotencyRecord) (domain.Receipt, error) {
	var id int64
	receipt, done, err := s.settle(ctx, rec, func() (domain.IdempotencyRecord, error) {
		var existing domain.IdempotencyRecord
		var err error
		id, existing, err = s.Store.InsertReportWithKey(ctx, staged, rec)
		return existing, err
	})
	if err != nil || done {
		return receipt, err
	}
	return domain.Receipt{ReportID: id}, nil
}

func (s *Reports) stale() time.Duration {
	if s.Stale > 0 {
		return s.Stale
	}
	return 2 * s.Wait
}

// committedAnyway looks whether a commit that returned an error was in fact
// applied (the answer lost on the way back): our claim is then done. When
// the store cannot tell, it was not.
func (s *Reports) committedAnyway(ctx context.Context, rec domain.IdempotencyRecord) (domain.IdempotencyRecord, bool) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 2*time.Second)
	defer cancel()
	got, err := s.Store.GetKey(ctx, rec.User, rec.KeyHash)
	if err != nil || got.Nonce != rec.Nonce || got.State != domain.KeyDone {
		return domain.IdempotencyRecord{}, false
	}
	return got, true
}

// release frees a claim after a failure. When the store is down the claim
// cannot be deleted now; it is retried in the background for as long as
// the claim could block a retry (Stale), so the partner's retry after the
// database returns is not answered 409 for a minute.
func (s *Reports) release(ctx context.Context, rec domain.IdempotencyRecord) {
	if s.Store.DeleteKey(ctx, rec) == nil {
		return
	}
	go func() {
		deadline := time.Now().Add(s.stale())
		for time.Now().Before(deadline) {
			time.Sleep(500 * time.Millisecond)
			if s.Store.DeleteKey(ctx, rec) == nil {
				return
			}
		}
	}()
}

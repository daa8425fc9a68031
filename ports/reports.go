package ports

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Reports is the use case "a partner reports a disbursement": map and
// validate, save the file durably, store the row with its idempotency
// record in one commit, and answer. A report is acknowledged only when
// both the row and the file are kept. A duplicate never leaves a second
// row or file: the store's unique key decides between racing duplicates
// (on any replica), and the loser removes its file and answers what the
// winner answered.
type Reports struct {
	cat     *domain.Catalogue
	rules   domain.FileRules
	st      ReportStore
	uploads UploadStore
	clock   Clock
	o       ReportsOptions

	// compat100Until (Unix nanoseconds) ends the time when records written
	// by version 1.0.0 may still be alive (compat100.go).
	compat100Until atomic.Int64
}

// ReportsOptions are the idempotency bounds of the reports use case.
type ReportsOptions struct {
	KeyTTL time.Duration // how long a key is remembered (idempotency.ttl, domain.CheckKeyTTL)
	Wait   time.Duration // how long a duplicate waits for a first still at work (0: not at all)
	Poll   time.Duration // how often a waiting duplicate looks again
	// Stale is the age after which a pending record (written only by
	// version 1.0.0; compat100.go) is taken for one whose request died;
	// it must exceed the longest a report can take (http.report_timeout).
	// It goes with compat100 in 2.0.0.
	Stale time.Duration
	// EventSlack (events.list_delay / 4): a report slower than this from
	// its receipt to the store has its event dated later by the rest
	// (StagedReport.EventAt, domain.LateEventTime); 0: at the receipt.
	EventSlack time.Duration
}

// NewReports returns the use case on its catalogue and file rules, store,
// upload store and clock. It refuses a missing one, a KeyTTL that
// domain.CheckKeyTTL refuses, a zero Poll or Stale, and a negative Wait.
func NewReports(cat *domain.Catalogue, rules domain.FileRules, store ReportStore, uploads UploadStore, clock Clock, o ReportsOptions) (*Reports, error) {
	switch {
	case cat == nil || store == nil || uploads == nil || clock == nil:
		return nil, errors.New("ports: NewReports needs a catalogue, a report store, an upload store and a clock")
	case len(rules.Allowed()) == 0:
		return nil, errors.New("ports: NewReports needs file rules (domain.NewFileRules)")
	case o.Poll <= 0 || o.Stale <= 0 || o.Wait < 0:
		return nil, fmt.Errorf("ports: NewReports: poll %s and stale bound %s must be above 0, wait %s not below", o.Poll, o.Stale, o.Wait)
	}
	if err := domain.CheckKeyTTL(o.KeyTTL); err != nil {
		return nil, fmt.Errorf("ports: NewReports: %w", err)
	}
	return &Reports{cat: cat, rules: rules, st: store, uploads: uploads, clock: clock, o: o}, nil
}

// Submission is one POST of a report.
type Submission struct {
	Principal      Principal
	Members        []domain.RawField
	IdempotencyKey string // "" when the header was absent
	RequestID      string
	// BodySHA256 returns the hex SHA-256 of the raw body, computed when
	// asked: only while records of version 1.0.0 may be alive.
	BodySHA256 func() string
	// Read says how the members are read: the zero value as the legacy
	// path reads them, DecimalsAsStrings on /v1. Its Stop is the use
	// case's to set (checking).
	Read domain.MapOptions
	// Client is the request as its client holds it: done when the client
	// has gone. The report's checks stop then, as they stop when the
	// report's own context ends; what follows them (storing) does not.
	// nil: the client is never taken for gone.
	Client context.Context
}

// checking returns how sub's members are read, with a Stop that closes
// when ctx ends (the report's time is up, the service stops) or when the
// client has gone, so that a file check does not outlive its request;
// release ends the watch once the checks are done.
func checking(ctx context.Context, sub Submission) (opts domain.MapOptions, release func()) {
	opts = sub.Read
	c, cancel := context.WithCancel(ctx)
	unwatch := func() bool { return false }
	if sub.Client != nil {
		if sub.Client.Err() != nil {
			// Gone already: stop before any work (AfterFunc would cancel
			// in a goroutine of its own, maybe after a small file's check).
			cancel()
		}
		unwatch = context.AfterFunc(sub.Client, cancel)
	}
	opts.Stop = c.Done()
	return opts, func() { unwatch(); cancel() }
}

// storeFailed is the answer to a store that failed: store_failed when
// nothing was stored, outcome_unknown when the report may have been (a
// commit whose outcome could not be known), so that the partner retries
// with the same key, never a new one.
func storeFailed(err error) error {
	code := "store_failed"
	if errors.Is(err, domain.ErrOutcomeUnknown) {
		code = "outcome_unknown"
	}
	return domain.NewError(domain.ErrUnavailable, code, domain.MsgStoreFailed).WithCause(err)
}

// Submit stores a report once. Errors: domain.ErrInvalidInput (with the
// problems), domain.ErrTooLarge, domain.ErrKeyReused, domain.ErrInProgress,
// domain.ErrGone (report_purged), domain.ErrUnavailable (also when the
// file's check stopped: ctx ended or the client has gone, before anything
// was stored).
func (s *Reports) Submit(ctx context.Context, sub Submission) (domain.Receipt, error) {
	// The receipt time is kept to the millisecond, so the answer and every
	// later look-up show the same instant on every store.
	now := s.clock.Now().UTC().Truncate(time.Millisecond)
	if sub.IdempotencyKey != "" && !domain.ValidIdempotencyKey(sub.IdempotencyKey) {
		return domain.Receipt{}, domain.NewError(domain.ErrInvalidInput, "invalid_idempotency_key",
			"Idempotency-Key inválida: "+domain.IdempotencyKeyBound.Es)
	}
	opts, release := checking(ctx, sub)
	rep, err := s.cat.MapReportWith(sub.Members, s.rules, now, opts)
	release()
	if err != nil {
		return domain.Receipt{}, err
	}
	identity := s.cat.Identity(rep)
	rec := domain.IdempotencyRecord{
		User: sub.Principal.User, KeyHash: domain.KeyHash(sub.IdempotencyKey, identity), PayloadSHA256: identity,
		State: domain.KeyDone, Nonce: rand.Text(), CreatedAt: now, ExpiresAt: now.Add(s.o.KeyTTL),
	}
	staged := domain.StagedReport{
		Report: rep, ReceivedAt: now, PartnerUser: sub.Principal.User, PartnerNIT: sub.Principal.NIT,
		RequestID: sub.RequestID, IdempotencyKey: sub.IdempotencyKey, PayloadSHA256: identity,
	}
	if raw := s.compat100(sub, now); raw != "" {
		if receipt, done, err := s.compat100Answer(ctx, sub, rec, raw); err != nil || done {
			return receipt, err
		}
	}
	if f := rep.File; f != nil {
		// A retry of a stored report is answered before its file is
		// written again.
		receipt, done, err := s.settle(ctx, rec, func() (domain.IdempotencyRecord, error) {
			existing, err := s.st.GetKey(ctx, rec.User, rec.KeyHash)
			if errors.Is(err, domain.ErrNotFound) {
				return existing, nil
			}
			if err != nil {
				return existing, err
			}
			return existing, domain.ErrConflict
		})
		if err != nil || done {
			return receipt, err
		}
		name, err := s.uploads.Save(ctx, rep.Text("numero_credito"), now, f)
		if err != nil {
			return domain.Receipt{}, domain.NewError(domain.ErrUnavailable, "file_store_failed", domain.MsgFileFailed).WithCause(err)
		}
		staged.FileName, staged.FileSize, staged.FileSHA256 = name, f.Size, hex.EncodeToString(f.SHA256[:])
		rec.FileName = name
	}
	return s.store(ctx, staged, rec)
}

// Validate runs every check Submit runs on a report (its fields, read as
// sub.Read says, and its file) and stores nothing: no row, no file, no
// idempotency record, so the Idempotency-Key is not read. Errors:
// domain.ErrInvalidInput (with the problems), domain.ErrTooLarge,
// domain.ErrUnavailable (the file's check stopped: ctx ended or the
// client has gone).
func (s *Reports) Validate(ctx context.Context, sub Submission) error {
	opts, release := checking(ctx, sub)
	defer release()
	_, err := s.cat.MapReportWith(sub.Members, s.rules, s.clock.Now().UTC(), opts)
	return err
}

// store inserts the row and its record. When an earlier submission with
// the same key decides the answer, or the insert fails, the file this
// submission saved is removed — except when the commit's outcome is
// unknown: the row may exist and name it, so the sweep decides later.
func (s *Reports) store(ctx context.Context, staged domain.StagedReport, rec domain.IdempotencyRecord) (domain.Receipt, error) {
	var id int64
	unknown := false
	receipt, done, err := s.settle(ctx, rec, func() (domain.IdempotencyRecord, error) {
		var existing domain.IdempotencyRecord
		var err error
		staged.EventAt = domain.LateEventTime(staged.ReceivedAt, staged.ReceivedAt, s.clock.Now(), s.o.EventSlack)
		id, existing, err = s.st.StoreReport(ctx, staged, rec)
		unknown = errors.Is(err, domain.ErrOutcomeUnknown)
		return existing, err
	})
	if err == nil && !done {
		// The answer of the request that stored the report shows the
		// state it was stored in, as its report.received event does.
		return domain.Receipt{StoredReceipt: domain.StoredReceipt{ID: id, CreditNumber: staged.Report.Text("numero_credito"),
			FileName: staged.FileName, ReceivedAt: staged.ReceivedAt, IdempotencyKey: staged.IdempotencyKey,
			Status: domain.StatusReceived}, FileSize: staged.FileSize}, nil
	}
	if staged.FileName != "" && !unknown {
		if rmErr := s.uploads.Remove(context.WithoutCancel(ctx), staged.FileName); rmErr != nil && err != nil {
			err = errors.Join(err, fmt.Errorf("remove unused file (the sweep will): %w", rmErr))
		}
	}
	return receipt, err
}

// settle runs attempt, which inserts or looks up the key for rec, until
// it succeeds or an earlier submission with the same key decides the
// answer: the first answer again (done), a reused key, or, while the
// first is still at work past the wait bound, 409.
func (s *Reports) settle(ctx context.Context, rec domain.IdempotencyRecord, attempt func() (domain.IdempotencyRecord, error)) (domain.Receipt, bool, error) {
	deadline := rec.CreatedAt.Add(s.o.Wait)
	for retries := 0; retries < 10; {
		existing, err := attempt()
		switch {
		case err == nil:
			return domain.Receipt{}, false, nil
		case errors.Is(err, ErrRecordGone):
			// The record that took the key expired and went: the key is
			// free again.
			retries++
			continue
		case !errors.Is(err, domain.ErrConflict):
			return domain.Receipt{}, false, storeFailed(err)
		}
		now := s.clock.Now()
		switch {
		case !existing.ExpiresAt.After(now), s.compat100Dead(existing, now):
			// Remembered long enough, or 1.0.0's pending record whose
			// request died: forget it and store anew.
			if err := s.st.DeleteKey(ctx, existing); err != nil {
				return domain.Receipt{}, false, storeFailed(err)
			}
			retries++
			continue
		case existing.PayloadSHA256 != rec.PayloadSHA256:
			return domain.Receipt{}, false, domain.NewError(domain.ErrKeyReused, "idempotency_key_reused",
				"Idempotency-Key ya usada con otro contenido; use una clave nueva para un reporte distinto")
		case existing.State == domain.KeyDone:
			receipt, err := s.replay(ctx, existing)
			return receipt, err == nil, err
		}
		if !now.Before(deadline) {
			break
		}
		select {
		case <-ctx.Done():
			return domain.Receipt{}, false, storeFailed(ctx.Err())
		case <-time.After(s.o.Poll):
		}
	}
	return domain.Receipt{}, false, domain.NewError(domain.ErrInProgress, "request_in_progress",
		"Un reporte idéntico se está procesando; reintente en unos segundos")
}

// replay is the first answer again, from its record. The record's report
// is read first (its receipt as stored now, which the answer shows): one
// the retention purge deleted while its record
// lives (a retention shorter than the idempotency.ttl of its day) is
// domain.ErrGone report_purged, never a 200 naming a report that is
// not there, and it is not stored again under the same key. When the
// record names a file, the file is looked for next: a 200 never names a
// file that is not there (503 instead; the cause, logged, names the row
// and the file).
func (s *Reports) replay(ctx context.Context, rec domain.IdempotencyRecord) (domain.Receipt, error) {
	stored, err := s.st.StoredReceipt(ctx, rec.ReportID)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return domain.Receipt{}, domain.NewError(domain.ErrGone, "report_purged", domain.MsgReportPurged).
			WithCause(fmt.Errorf("the record of key %s names report %d, which is no longer stored", rec.KeyHash[:min(12, len(rec.KeyHash))], rec.ReportID))
	case err != nil:
		return domain.Receipt{}, storeFailed(err)
	}
	if rec.FileName != "" {
		ok, err := s.uploads.Exists(ctx, rec.FileName)
		if err == nil && !ok {
			err = fmt.Errorf("a stored report's file is missing: report %d names %s", rec.ReportID, rec.FileName)
		}
		if err != nil {
			return domain.Receipt{}, domain.NewError(domain.ErrUnavailable, "file_store_failed", domain.MsgFileFailed).WithCause(err)
		}
	}
	return domain.Receipt{StoredReceipt: stored, Replayed: true}, nil
}

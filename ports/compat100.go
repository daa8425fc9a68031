package ports

import (
	"context"
	"errors"
	"time"

	"github.com/lender/disbursementd/domain"
)

// This file is compat100: the compatibility with the idempotency records of
// version 1.0.0, which keyed a report by its raw body's hash (with
// domain.Compat100KeyHash and the store's Compat100Until) and wrote a
// pending record before storing its report (domain.KeyPending: taken over
// after ReportsOptions.Stale, removed by the sweep as FoundPendingRecord).
// It is removed in 2.0.0 (CHANGELOG.md, "Deprecated"): by then no record of
// 1.0.0 can be alive, since each lives idempotency.ttl after the upgrade to
// 1.1.0 and 2.0.0 is reached only from a 1.x release.

// FoundPendingRecord is the sweep's finding of a pending record whose
// request died. Its value keeps the word operators already see, a label
// of disbursementd_sweep_findings_total and disbursementd_sweep_failures_total
// and a key of the sweep's log line and of reconcile's output: the kind
// goes away in 2.0.0 with this file, and renaming it first would break
// their alerts and dashboards for a word about to disappear.
const FoundPendingRecord = "pending_claim"

// compat100Dead reports whether rec is a pending record of version 1.0.0
// older than ReportsOptions.Stale: its request died, so its key is taken
// over.
func (s *Reports) compat100Dead(rec domain.IdempotencyRecord, now time.Time) bool {
	return rec.State == domain.KeyPending && rec.CreatedAt.Add(s.o.Stale).Before(now)
}

// SetCompat100Until says until when records written by version 1.0.0 (keyed
// by the raw body's hash, not the report's identity) may still be alive.
// Until then a submission is also looked up the old way, so that a retry
// across the upgrade gets its first answer instead of a second row or a
// 400 idempotency_key_reused. The zero time: there are none.
func (s *Reports) SetCompat100Until(t time.Time) {
	if t.IsZero() {
		s.compat100Until.Store(0)
		return
	}
	s.compat100Until.Store(t.UnixNano())
}

// compat100 returns the raw body's hash when records of version 1.0.0 may
// still be alive, else "".
func (s *Reports) compat100(sub Submission, now time.Time) string {
	if until := s.compat100Until.Load(); until == 0 || now.UnixNano() >= until || sub.BodySHA256 == nil {
		return ""
	}
	return sub.BodySHA256()
}

// compat100Answer looks for a record version 1.0.0 made of the same raw body:
// under its old key hash when the submission has no Idempotency-Key, under
// the same key (whose record then holds the raw body's hash) when it has.
// done is true when that record answers.
func (s *Reports) compat100Answer(ctx context.Context, sub Submission, rec domain.IdempotencyRecord, raw string) (domain.Receipt, bool, error) {
	keyHash := rec.KeyHash
	if sub.IdempotencyKey == "" {
		keyHash = domain.Compat100KeyHash(raw)
	}
	old, err := s.st.GetKey(ctx, rec.User, keyHash)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return domain.Receipt{}, false, nil
	case err != nil:
		return domain.Receipt{}, false, storeFailed(err)
	case old.State == domain.KeyDone && old.PayloadSHA256 == raw && old.ExpiresAt.After(s.clock.Now()):
		receipt, err := s.replay(ctx, old)
		return receipt, err == nil, err
	}
	return domain.Receipt{}, false, nil
}

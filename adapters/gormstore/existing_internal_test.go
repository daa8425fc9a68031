package gormstore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestTakenKeyWhoseRecordIsGone: when the batch found the key taken but
// the record that took it is gone by the time it is read (expired and
// swept in between), StoreReport's answer is the retry result
// ports.ErrRecordGone with no record, never a made-up one; a record that
// is there is the conflict's answer.
func TestTakenKeyWhoseRecordIsGone(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	s, err := Open(SQLite, filepath.Join(t.TempDir(), "gone.db"), testOptions(), domain.DefaultCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if _, err := s.Migrate(ctx); err != nil {
		t.Fatal(err)
	}
	now := time.Now().UTC()
	rec := domain.IdempotencyRecord{User: "acme", KeyHash: "k1", PayloadSHA256: "p", State: domain.KeyDone, Nonce: "n1",
		CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	got, err := s.existing(ctx, rec)
	if !errors.Is(err, ports.ErrRecordGone) || errors.Is(err, domain.ErrConflict) || got != (domain.IdempotencyRecord{}) {
		t.Fatalf("gone record: %+v, %v; want no record and ports.ErrRecordGone", got, err)
	}
	if err := s.write.orm.Exec("INSERT INTO idempotency_keys ("+keyNames+") VALUES ("+placeholders(9)+")", keyArgs(rec, 7)...).Error; err != nil {
		t.Fatal(err)
	}
	got, err = s.existing(ctx, rec)
	if !errors.Is(err, domain.ErrConflict) || got.Nonce != "n1" || got.ReportID != 7 {
		t.Fatalf("present record: %+v, %v; want it and ErrConflict", got, err)
	}
}

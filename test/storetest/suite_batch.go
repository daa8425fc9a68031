package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// The group commit: what concurrent StoreReports do together. Each
// report's outcome stays its own whether or not it shared a commit.

// testConcurrentDistinct: concurrent distinct reports: all stored, distinct ids.
func testConcurrentDistinct(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	const n = 200
	ids := make([]int64, n)
	errs := storeAll(n, func(i int) error {
		var err error
		ids[i], _, err = h.Store.StoreReport(ctx, staged(t, "acme", fmt.Sprintf("CR-MANY-%d", i), now), record("acme", fmt.Sprintf("many-%d", i), now))
		return err
	})
	seen := map[int64]bool{}
	for i, err := range errs {
		if err != nil {
			t.Fatalf("report %d: %v", i, err)
		}
		if ids[i] <= 0 || seen[ids[i]] {
			t.Fatalf("report %d: id %d (zero or repeated)", i, ids[i])
		}
		seen[ids[i]] = true
	}
	// Every id names its own report's row and record: on MySQL a batch's
	// rows go in multi-row statements, whose ids the store works out.
	for i := range n {
		row, err := h.Row(ctx, ids[i])
		if err != nil || row["numero_credito"] != fmt.Sprintf("CR-MANY-%d", i) {
			t.Fatalf("row %d of report %d: %v, %v", ids[i], i, row["numero_credito"], err)
		}
		rec, err := h.Store.GetKey(ctx, "acme", domain.KeyHash(fmt.Sprintf("many-%d", i), ""))
		if err != nil || rec.ReportID != ids[i] {
			t.Fatalf("record of report %d: report id %d, want %d (%v)", i, rec.ReportID, ids[i], err)
		}
	}
	if c, _ := h.Count(ctx); c != n {
		t.Fatalf("%d rows, want %d", c, n)
	}
}

// testDuplicatesTogether: duplicates arriving together: one row, the others get the winner's record.
func testDuplicatesTogether(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	const keys, copies = 5, 8
	type answer struct {
		nonce    string
		id       int64
		existing domain.IdempotencyRecord
		err      error
	}
	answers := make([]answer, keys*copies)
	storeAll(len(answers), func(i int) error {
		rec := record("acme", fmt.Sprintf("dup-%d", i%keys), now)
		a := answer{nonce: rec.Nonce}
		a.id, a.existing, a.err = h.Store.StoreReport(ctx, staged(t, "acme", fmt.Sprintf("CR-DUP-%d", i%keys), now), rec)
		answers[i] = a
		return a.err
	})
	for k := 0; k < keys; k++ {
		var winner *answer
		for i := k; i < len(answers); i += keys {
			if answers[i].err == nil {
				if winner != nil {
					t.Fatalf("key %d: two winners", k)
				}
				winner = &answers[i]
			}
		}
		if winner == nil {
			t.Fatalf("key %d: no winner", k)
		}
		for i := k; i < len(answers); i += keys {
			a := answers[i]
			if a.err == nil {
				continue
			}
			if !errors.Is(a.err, domain.ErrConflict) || a.existing.Nonce != winner.nonce || a.existing.ReportID != winner.id {
				t.Errorf("key %d: loser got %+v, %v; want ErrConflict with the winner's record (id %d)", k, a.existing, a.err, winner.id)
			}
		}
	}
	if c, _ := h.Count(ctx); c != keys {
		t.Fatalf("%d rows, want %d", c, keys)
	}
}

// testRefusedRowAlone: a refused row fails only itself.
func testRefusedRowAlone(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	h.Refuse(t, "CR-REFUSED")
	const n = 40
	bad := map[int]bool{7: true, 23: true}
	errs := storeAll(n, func(i int) error {
		credit := fmt.Sprintf("CR-OK-%d", i)
		if bad[i] {
			credit = "CR-REFUSED"
		}
		_, _, err := h.Store.StoreReport(ctx, staged(t, "acme", credit, now), record("acme", fmt.Sprintf("refuse-%d", i), now))
		return err
	})
	for i, err := range errs {
		switch {
		case bad[i] && (err == nil || errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrOutcomeUnknown)):
			t.Errorf("refused report %d: %v; want a plain error", i, err)
		case !bad[i] && err != nil:
			t.Errorf("report %d beside a refused one: %v", i, err)
		}
	}
	for i := range bad {
		if _, err := h.Store.GetKey(ctx, "acme", record("acme", fmt.Sprintf("refuse-%d", i), now).KeyHash); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("refused report %d left its record: %v", i, err)
		}
	}
	if c, _ := h.Count(ctx); c != n-int64(len(bad)) {
		t.Fatalf("%d rows, want %d", c, n-len(bad))
	}
}

// testGaveUpBeforeBatch: a caller that gave up before its batch stores nothing.
func testGaveUpBeforeBatch(t *testing.T, h Harness) {
	now := reportNow()
	ctx := context.Background()
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	// Many times over: with room in the queue and idle writers, a caller
	// whose context was done could once be queued and taken at random
	// (one run in a few hundred) and hear "outcome unknown".
	for i := 0; i < 200; i++ {
		rec := record("acme", fmt.Sprintf("gave-up-%d", i), now)
		if _, _, err := h.Store.StoreReport(cctx, staged(t, "acme", fmt.Sprintf("CR-GONE-%d", i), now), rec); err == nil || errors.Is(err, domain.ErrOutcomeUnknown) {
			t.Fatalf("StoreReport %d with a cancelled context = %v; want a plain error", i, err)
		}
	}
	if c, _ := h.Count(ctx); c != 0 {
		t.Fatalf("%d rows, want 0", c)
	}
}

// storeAll runs fn(0..n-1) at once, released together, and returns their
// errors.
func storeAll(n int, fn func(i int) error) []error {
	errs := make([]error, n)
	start := make(chan struct{})
	var wg sync.WaitGroup
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			errs[i] = fn(i)
		}()
	}
	close(start)
	wg.Wait()
	return errs
}

// staged is a minimal report of user with its own credit number.
func staged(t testing.TB, user, credit string, now time.Time) domain.StagedReport {
	t.Helper()
	rep, err := domain.DefaultCatalogue().MapReport(minimalMembers(now, credit), fixture.FileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	return domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: user, PayloadSHA256: "p"}
}

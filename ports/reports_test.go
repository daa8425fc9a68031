package ports_test

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
)

var t0 = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

func newReports(store *memStore, up *memUploads, clock ports.Clock) *ports.Reports {
	return &ports.Reports{
		Catalogue: domain.DefaultCatalogue(), Rules: domain.DefaultFileRules(),
		Store: store, Uploads: up, Clock: clock,
		KeyTTL: 24 * time.Hour, Wait: 2 * time.Second, Poll: time.Millisecond,
	}
}

func submission(t *testing.T, body map[string]any, key string) ports.Submission {
	t.Helper()
	ms := fixture.Members(body)
	return ports.Submission{Principal: ports.Principal{User: "acme", NIT: "900123456"}, Members: ms,
		PayloadSHA256: fmt.Sprintf("%x", fixture.JSON(body)), IdempotencyKey: key}
}

func withFile(credit string) map[string]any {
	b := fixture.Minimal(t0, credit)
	b["Documento Soporte"] = fixture.FileDto(fixture.PDF(300), "a.pdf")
	return b
}

func TestSubmitStoresOnceAndReplays(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	svc := newReports(store, up, &fixedClock{t: t0})
	sub := submission(t, withFile("CR-1"), "")
	first, err := svc.Submit(context.Background(), sub)
	if err != nil || first.ReportID != 1 || first.FileName != "partner_CR-1_20261126T100000000Z.pdf" || first.Replayed {
		t.Fatalf("first = %+v, %v", first, err)
	}
	again, err := svc.Submit(context.Background(), sub)
	if err != nil || again.ReportID != first.ReportID || again.FileName != first.FileName || !again.Replayed {
		t.Fatalf("replay = %+v, %v", again, err)
	}
	if store.count() != 1 || up.count() != 1 {
		t.Fatalf("%d rows %d files, want 1 and 1", store.count(), up.count())
	}
}

func TestSubmitKeyedAndUnkeyedNeverMatch(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	svc := newReports(store, up, &fixedClock{t: t0})
	body := fixture.Minimal(t0, "CR-1")
	if _, err := svc.Submit(context.Background(), submission(t, body, "")); err != nil {
		t.Fatal(err)
	}
	r, err := svc.Submit(context.Background(), submission(t, body, "key-1"))
	if err != nil || r.Replayed || store.count() != 2 {
		t.Fatalf("keyed after unkeyed: %+v, %v, rows %d", r, err, store.count())
	}
}

func TestSubmitKeyReusedWithOtherBody(t *testing.T) {
	svc := newReports(newMemStore(), newMemUploads(), &fixedClock{t: t0})
	if _, err := svc.Submit(context.Background(), submission(t, fixture.Minimal(t0, "CR-1"), "k")); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Submit(context.Background(), submission(t, fixture.Minimal(t0, "CR-2"), "k"))
	if !errors.Is(err, domain.ErrKeyReused) {
		t.Fatalf("err = %v, want ErrKeyReused", err)
	}
}

func TestSubmitInvalidKeyAndBody(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	svc := newReports(store, up, &fixedClock{t: t0})
	if _, err := svc.Submit(context.Background(), submission(t, fixture.Minimal(t0, "CR-1"), "bad\x01key")); !errors.Is(err, domain.ErrInvalidInput) {
		t.Errorf("control character in key: %v", err)
	}
	bad := fixture.Minimal(t0, "CR-1")
	delete(bad, "Primer Nombre")
	if _, err := svc.Submit(context.Background(), submission(t, bad, "k")); !errors.Is(err, domain.ErrInvalidInput) {
		t.Errorf("invalid body: %v", err)
	}
	// A 400 is not remembered: the corrected body goes through with the same key.
	if _, err := svc.Submit(context.Background(), submission(t, fixture.Minimal(t0, "CR-1"), "k")); err != nil {
		t.Errorf("corrected retry: %v", err)
	}
}

func TestSubmitKeyExpires(t *testing.T) {
	clock := &fixedClock{t: t0}
	store := newMemStore()
	svc := newReports(store, newMemUploads(), clock)
	sub := submission(t, fixture.Minimal(t0, "CR-1"), "")
	if _, err := svc.Submit(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	clock.Add(25 * time.Hour)
	r, err := svc.Submit(context.Background(), sub)
	if err != nil || r.Replayed || store.count() != 2 {
		t.Fatalf("after 25 h: %+v %v rows %d; want a new report", r, err, store.count())
	}
}

func TestSubmitFileFailureLeavesNoRow(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	up.saveErr = errors.New("disk full")
	svc := newReports(store, up, &fixedClock{t: t0})
	sub := submission(t, withFile("CR-1"), "k")
	_, err := svc.Submit(context.Background(), sub)
	if !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if store.count() != 0 || len(store.keys) != 0 {
		t.Fatalf("rows %d keys %d after a failed file, want none", store.count(), len(store.keys))
	}
	up.saveErr = nil
	if _, err := svc.Submit(context.Background(), sub); err != nil {
		t.Fatalf("retry after the disk recovered: %v", err)
	}
}

func TestSubmitStoreFailureRemovesFile(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	store.commitErr = errors.New("connection refused")
	svc := newReports(store, up, &fixedClock{t: t0})
	_, err := svc.Submit(context.Background(), submission(t, withFile("CR-1"), ""))
	var de *domain.Error
	if !errors.As(err, &de) || !errors.Is(err, domain.ErrUnavailable) || de.Message != "No se pudo copiar los datos a tabla temporal" {
		t.Fatalf("err = %v", err)
	}
	if up.count() != 0 || len(store.keys) != 0 {
		t.Fatalf("files %d keys %d after a failed insert, want none", up.count(), len(store.keys))
	}
}

func TestSubmitConcurrentDuplicatesWait(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	up.delay = 50 * time.Millisecond
	svc := newReports(store, up, ports.SystemClock{})
	sub := submission(t, withFile("CR-1"), "")
	got, errs := submitConcurrently(svc, sub, 20)
	for i := range got {
		if errs[i] != nil || got[i].ReportID != 1 || got[i].FileName != got[0].FileName {
			t.Errorf("submission %d: %+v %v", i, got[i], errs[i])
		}
	}
	if store.count() != 1 || up.count() != 1 {
		t.Fatalf("%d rows %d files, want 1 and 1", store.count(), up.count())
	}
}

func TestSubmitInProgressPastTheBound(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	svc := newReports(store, up, ports.SystemClock{})
	svc.Wait, svc.Stale = 30*time.Millisecond, 60*time.Millisecond
	sub := submission(t, fixture.Minimal(t0, "CR-1"), "")
	// A claim held by a request that is still working.
	_, _ = store.ClaimKey(context.Background(), domain.IdempotencyRecord{User: "acme",
		KeyHash: ports.KeyHash("", sub.PayloadSHA256), PayloadSHA256: sub.PayloadSHA256,
		State: domain.KeyPending, Nonce: "other", CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)})
	if _, err := svc.Submit(context.Background(), sub); !errors.Is(err, domain.ErrInProgress) {
		t.Fatalf("err = %v, want ErrInProgress", err)
	}
	// Once the claim is older than Stale, its owner is taken for dead.
	time.Sleep(40 * time.Millisecond)
	if r, err := svc.Submit(context.Background(), sub); err != nil || r.Replayed {
		t.Fatalf("takeover: %+v, %v", r, err)
	}
}

func TestSubmitWithoutFileConcurrentDuplicates(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	svc := newReports(store, up, ports.SystemClock{})
	sub := submission(t, fixture.Minimal(t0, "CR-NOFILE"), "")
	got, errs := submitConcurrently(svc, sub, 20)
	replays := 0
	for i := range got {
		if errs[i] != nil || got[i].ReportID != 1 {
			t.Errorf("submission %d: %+v %v", i, got[i], errs[i])
		}
		if got[i].Replayed {
			replays++
		}
	}
	if store.count() != 1 || replays != 19 {
		t.Fatalf("%d rows, %d replays; want 1 and 19", store.count(), replays)
	}
}

// TestSubmitLostCommitAnswer: the commit is applied but its answer lost.
// The report is acknowledged once, its file kept, and the record not
// released (a retry replays instead of storing twice).
func TestSubmitLostCommitAnswer(t *testing.T) {
	store, up := newMemStore(), newMemUploads()
	store.lostAck = true
	svc := newReports(store, up, &fixedClock{t: t0})
	sub := submission(t, withFile("CR-1"), "")
	r, err := svc.Submit(context.Background(), sub)
	if err != nil || r.ReportID != 1 || up.count() != 1 {
		t.Fatalf("lost answer: %+v %v, files %d", r, err, up.count())
	}
	store.lostAck = false
	again, err := svc.Submit(context.Background(), sub)
	if err != nil || !again.Replayed || store.count() != 1 {
		t.Fatalf("retry: %+v %v, rows %d", again, err, store.count())
	}
}

// submitConcurrently sends the same submission n times at once.
func submitConcurrently(svc *ports.Reports, sub ports.Submission, n int) ([]domain.Receipt, []error) {
	var wg sync.WaitGroup
	got, errs := make([]domain.Receipt, n), make([]error, n)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = svc.Submit(context.Background(), sub)
		}()
	}
	wg.Wait()
	return got, errs
}

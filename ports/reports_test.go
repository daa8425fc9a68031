package ports_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

var t0 = time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)

func fixtures(clock ports.Clock) (*fakes.ReportStore, *fakes.Uploads) {
	return fakes.NewReportStore(), fakes.NewUploads(clock)
}

func submission(body map[string]any, key string) ports.Submission {
	return ports.Submission{Principal: ports.Principal{User: "acme", NIT: "900123456"}, Members: fixture.Members(body), IdempotencyKey: key}
}

func withFile(credit string) map[string]any {
	b := fixture.Minimal(t0, credit)
	b["Documento Soporte"] = fixture.FileDto(fixture.PDF(300), "a.pdf")
	return b
}

func TestSubmitStoresOnceAndReplays(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	sub := submission(withFile("CR-1"), "")
	first, err := svc.Submit(context.Background(), sub)
	if err != nil || first.ID != 1 || first.FileName != "partner_CR-1_20261126T100000000Z.pdf" || first.Replayed {
		t.Fatalf("first = %+v, %v", first, err)
	}
	again, err := svc.Submit(context.Background(), sub)
	if err != nil || again.ID != first.ID || again.FileName != first.FileName || !again.Replayed {
		t.Fatalf("replay = %+v, %v", again, err)
	}
	if store.Count() != 1 || up.Count() != 1 {
		t.Fatalf("%d rows %d files, want 1 and 1", store.Count(), up.Count())
	}
}

// keyedFirst is the reports use case on fakes and the first answer to a
// report with a file and Idempotency-Key k-1: the replay tests' start.
func keyedFirst(t *testing.T) replayCase {
	t.Helper()
	c := replayCase{clock: fakes.NewClock(t0), sub: submission(withFile("CR-1"), "k-1")}
	c.store, c.up = fixtures(c.clock)
	c.svc = newReports(t, c.store, c.up, c.clock)
	var err error
	if c.first, err = c.svc.Submit(context.Background(), c.sub); err != nil {
		t.Fatal(err)
	}
	return c
}

// replayCase is what keyedFirst made.
type replayCase struct {
	svc   *ports.Reports
	store *fakes.ReportStore
	up    *fakes.Uploads
	clock *fakes.Clock
	sub   ports.Submission
	first domain.Receipt
}

// TestSubmitReturnsTheStoredReceipt: the first answer and a replay (a
// second later) carry the same receipt as stored, the one every surface
// shows: its credit number, its first receipt time and key, its state;
// the replay's is read from the store (StoredReceipt), not made up.
func TestSubmitReturnsTheStoredReceipt(t *testing.T) {
	c := keyedFirst(t)
	svc, clock, sub, first := c.svc, c.clock, c.sub, c.first
	want := domain.StoredReceipt{ID: 1, CreditNumber: "CR-1", FileName: "partner_CR-1_20261126T100000000Z.pdf",
		ReceivedAt: t0, IdempotencyKey: "k-1", Status: domain.StatusReceived}
	if first.StoredReceipt != want || first.FileSize == 0 {
		t.Fatalf("first = %+v, want %+v and its file's size", first, want)
	}
	clock.Add(time.Second)
	again, err := svc.Submit(context.Background(), sub)
	if err != nil || !again.Replayed || again.StoredReceipt != want || again.FileSize != 0 {
		t.Fatalf("replay = %+v, %v; want %+v", again, err, want)
	}
}

// TestSubmitSameReportOtherSpelling: idempotency compares reports, not
// bytes (contract §7): other key spellings and numbers as strings replay,
// with or without the same Idempotency-Key.
func TestSubmitSameReportOtherSpelling(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	body := fixture.Minimal(t0, "CR-1")
	respelled := map[string]any{}
	for k, v := range body {
		respelled[k] = v
	}
	delete(respelled, "Plazo (meses)")
	respelled["PLAZO (MESES)"] = "36"
	for _, key := range []string{"", "k-1"} {
		if _, err := svc.Submit(context.Background(), submission(body, key)); err != nil {
			t.Fatal(err)
		}
		r, err := svc.Submit(context.Background(), submission(respelled, key))
		if err != nil || !r.Replayed {
			t.Fatalf("key %q: respelled report = %+v, %v; want a replay", key, r, err)
		}
	}
	if store.Count() != 2 {
		t.Fatalf("%d rows, want 2 (one unkeyed, one keyed)", store.Count())
	}
}

func TestSubmitKeyedAndUnkeyedNeverMatch(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	body := fixture.Minimal(t0, "CR-1")
	if _, err := svc.Submit(context.Background(), submission(body, "")); err != nil {
		t.Fatal(err)
	}
	r, err := svc.Submit(context.Background(), submission(body, "key-1"))
	if err != nil || r.Replayed || store.Count() != 2 {
		t.Fatalf("keyed after unkeyed: %+v, %v, rows %d", r, err, store.Count())
	}
}

func TestSubmitKeyReusedWithOtherBody(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	if _, err := svc.Submit(context.Background(), submission(withFile("CR-1"), "k")); err != nil {
		t.Fatal(err)
	}
	_, err := svc.Submit(context.Background(), submission(withFile("CR-2"), "k"))
	if !errors.Is(err, domain.ErrKeyReused) {
		t.Fatalf("err = %v, want ErrKeyReused", err)
	}
	if store.Count() != 1 || up.Count() != 1 {
		t.Fatalf("%d rows %d files after a reused key, want 1 and 1", store.Count(), up.Count())
	}
}

func TestSubmitInvalidKeyAndBody(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	if _, err := svc.Submit(context.Background(), submission(fixture.Minimal(t0, "CR-1"), "bad\x01key")); !errors.Is(err, domain.ErrInvalidInput) {
		t.Errorf("control character in key: %v", err)
	}
	bad := fixture.Minimal(t0, "CR-1")
	delete(bad, "Primer Nombre")
	if _, err := svc.Submit(context.Background(), submission(bad, "k")); !errors.Is(err, domain.ErrInvalidInput) {
		t.Errorf("invalid body: %v", err)
	}
	// A 400 is not remembered: the corrected body goes through with the same key.
	if _, err := svc.Submit(context.Background(), submission(fixture.Minimal(t0, "CR-1"), "k")); err != nil {
		t.Errorf("corrected retry: %v", err)
	}
}

func TestSubmitKeyExpires(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	sub := submission(fixture.Minimal(t0, "CR-1"), "")
	if _, err := svc.Submit(context.Background(), sub); err != nil {
		t.Fatal(err)
	}
	clock.Add(25 * time.Hour)
	r, err := svc.Submit(context.Background(), sub)
	if err != nil || r.Replayed || store.Count() != 2 {
		t.Fatalf("after 25 h: %+v %v rows %d; want a new report", r, err, store.Count())
	}
}

func TestSubmitFileFailureLeavesNoRow(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	up.Fail = errors.New("disk full")
	svc := newReports(t, store, up, clock)
	sub := submission(withFile("CR-1"), "k")
	_, err := svc.Submit(context.Background(), sub)
	if !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("err = %v, want ErrUnavailable", err)
	}
	if store.Count() != 0 || store.Keys() != 0 {
		t.Fatalf("rows %d keys %d after a failed file, want none", store.Count(), store.Keys())
	}
	up.Fail = nil
	if _, err := svc.Submit(context.Background(), sub); err != nil {
		t.Fatalf("retry after the disk recovered: %v", err)
	}
}

func TestSubmitStoreFailureRemovesFile(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	store.Fail = errors.New("connection refused")
	svc := newReports(t, store, up, clock)
	_, err := svc.Submit(context.Background(), submission(withFile("CR-1"), ""))
	var de *domain.Error
	if !errors.As(err, &de) || !errors.Is(err, domain.ErrUnavailable) || de.Message != domain.MsgStoreFailed {
		t.Fatalf("err = %v", err)
	}
	if up.Count() != 0 || store.Keys() != 0 {
		t.Fatalf("files %d keys %d after a failed insert, want none", up.Count(), store.Keys())
	}
}

// TestSubmitLostCommitAnswer: the commit is applied but its answer lost,
// so its outcome is unknown. The partner gets 503, the file is kept (the
// row that may exist names it), and the retry replays the first answer,
// whose file is there.
func TestSubmitLostCommitAnswer(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	store.LostAnswer = true
	svc := newReports(t, store, up, clock)
	sub := submission(withFile("CR-1"), "")
	if _, err := svc.Submit(context.Background(), sub); !errors.Is(err, domain.ErrUnavailable) {
		t.Fatalf("lost answer: %v, want ErrUnavailable", err)
	}
	if up.Count() != 1 {
		t.Fatalf("%d files after an unknown outcome, want the file kept", up.Count())
	}
	store.LostAnswer = false
	again, err := svc.Submit(context.Background(), sub)
	if err != nil || !again.Replayed || store.Count() != 1 {
		t.Fatalf("retry: %+v %v, rows %d", again, err, store.Count())
	}
	if ok, _ := up.Exists(context.Background(), again.FileName); !ok {
		t.Fatalf("the replay names %s, which is gone", again.FileName)
	}
}

// TestSubmitConcurrentDuplicates: identical reports at once leave one row
// and one file, and all get the same answer, with a file or without.
func TestSubmitConcurrentDuplicates(t *testing.T) {
	for name, body := range map[string]map[string]any{"with file": withFile("CR-1"), "without file": fixture.Minimal(t0, "CR-1")} {
		t.Run(name, func(t *testing.T) {
			store, up := fixtures(sysclock.Clock{})
			up.Delay = 20 * time.Millisecond
			svc := newReports(t, store, up, sysclock.Clock{})
			got, errs := submitConcurrently(svc, submission(body, ""), 20)
			replays := 0
			for i := range got {
				if errs[i] != nil || got[i].ID != 1 || got[i].FileName != got[0].FileName {
					t.Errorf("submission %d: %+v %v", i, got[i], errs[i])
				}
				if got[i].Replayed {
					replays++
				}
			}
			wantFiles := 1
			if name == "without file" {
				wantFiles = 0
			}
			if store.Count() != 1 || up.Count() != wantFiles || replays != 19 {
				t.Fatalf("%d rows %d files %d replays, want 1, %d, 19", store.Count(), up.Count(), replays, wantFiles)
			}
		})
	}
}

// TestSubmitInProgressPastTheBound: a pending record (written by version
// 1.0.0 during a rolling upgrade) makes a duplicate wait, then 409; once
// older than Stale it is taken for dead and taken over.
func TestSubmitInProgressPastTheBound(t *testing.T) {
	store, up := fixtures(sysclock.Clock{})
	o := reportsOptions()
	o.Wait, o.Stale = 30*time.Millisecond, 60*time.Millisecond
	svc := newReportsWith(t, store, up, sysclock.Clock{}, o)
	body := fixture.Minimal(t0, "CR-1")
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(body), fixture.FileRules(), t0)
	if err != nil {
		t.Fatal(err)
	}
	id := domain.DefaultCatalogue().Identity(rep)
	store.PutKey(domain.IdempotencyRecord{User: "acme", KeyHash: domain.KeyHash("", id), PayloadSHA256: id,
		State: domain.KeyPending, Nonce: "other", CreatedAt: time.Now(), ExpiresAt: time.Now().Add(time.Hour)})
	if _, err := svc.Submit(context.Background(), submission(body, "")); !errors.Is(err, domain.ErrInProgress) {
		t.Fatalf("err = %v, want ErrInProgress", err)
	}
	time.Sleep(40 * time.Millisecond)
	if r, err := svc.Submit(context.Background(), submission(body, "")); err != nil || r.Replayed {
		t.Fatalf("takeover: %+v, %v", r, err)
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

// TestSubmitFindsRecordsOfVersion1: after an upgrade, records written by
// version 1.0.0 (keyed by the raw body's hash) are found while they live,
// so a retry across the upgrade gets its first answer, with or without an
// Idempotency-Key; a reused key with another body is still refused; once
// they have expired nothing looks for them.
func TestSubmitFindsRecordsOfVersion1(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	svc := newReports(t, store, up, clock)
	svc.SetCompat100Until(t0.Add(24 * time.Hour))
	raw := "7f3c9a0e" + strings.Repeat("0", 56) // the 1.0.0 record's payload hash
	old := domain.IdempotencyRecord{User: "acme", State: domain.KeyDone, Nonce: "n", ReportID: 41, FileName: "partner_CR-1_old.pdf",
		CreatedAt: t0.Add(-time.Hour), ExpiresAt: t0.Add(23 * time.Hour), PayloadSHA256: raw}
	unkeyed, keyed := old, old
	unkeyed.KeyHash = domain.Compat100KeyHash(raw)
	keyed.KeyHash, keyed.ReportID = domain.KeyHash("k-1", ""), 42
	store.PutKey(unkeyed)
	store.PutKey(keyed)
	up.PutFile(old.FileName, fixture.PDF(300), old.CreatedAt) // the file the 1.0.0 rows name
	sub := submission(withFile("CR-1"), "")
	sub.BodySHA256 = func() string { return raw }
	for key, want := range map[string]int64{"": 41, "k-1": 42} {
		sub.IdempotencyKey = key
		r, err := svc.Submit(context.Background(), sub)
		if err != nil || !r.Replayed || r.ID != want {
			t.Errorf("key %q: retry of a 1.0.0 report = %+v, %v; want the first answer (%d)", key, r, err, want)
		}
	}
	if store.Count() != 0 || up.Count() != 1 {
		t.Fatalf("%d rows %d files after retries of stored reports, want 0 and the first one's", store.Count(), up.Count())
	}
	sub.IdempotencyKey, sub.BodySHA256 = "k-1", func() string { return strings.Repeat("1", 64) } // another body
	if _, err := svc.Submit(context.Background(), sub); !errors.Is(err, domain.ErrKeyReused) {
		t.Errorf("the same key with another body: %v, want ErrKeyReused", err)
	}
	clock.Add(25 * time.Hour)
	sub.IdempotencyKey, sub.BodySHA256 = "", func() string { t.Fatal("the raw body was hashed after the window"); return "" }
	if r, err := svc.Submit(context.Background(), sub); err != nil || r.Replayed {
		t.Fatalf("after the window: %+v, %v; want a new report", r, err)
	}
}

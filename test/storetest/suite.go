package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fixture"
)

// RunReportStore is the one store suite every adapter runs.
func RunReportStore(t *testing.T, open func(testing.TB) *gormstore.Store) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	var _ ports.ReportStore = open(t)

	t.Run("migrations are idempotent", func(t *testing.T) {
		st := open(t)
		if applied, err := st.Migrate(ctx); err != nil || len(applied) != 0 {
			t.Fatalf("second Migrate = %v, %v; want nothing to do", applied, err)
		}
		if err := st.CheckSchema(ctx); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("full report round trip", func(t *testing.T) {
		st := open(t)
		body := fixture.FullBody(now, "CR-FULL-1", nil)
		rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(body), domain.DefaultFileRules(), now)
		if err != nil {
			t.Fatal(err)
		}
		claim := mustClaim(t, st, "acme", "k-full", now)
		staged := domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PartnerNIT: "900123456-8",
			FileName: "partner_CR-FULL-1_x.pdf", FileSize: 1234, FileSHA256: fmt.Sprintf("%064x", 7),
			RequestID: "req-1", IdempotencyKey: "k-full", PayloadSHA256: fmt.Sprintf("%064x", 9)}
		id, err := st.CommitReport(ctx, staged, claim)
		if err != nil || id <= 0 {
			t.Fatalf("CommitReport = %d, %v", id, err)
		}
		row, err := st.ReportRow(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		for _, v := range fixture.Full(now) {
			f, _ := domain.DefaultCatalogue().Lookup(v.Partner)
			want := v.Stored
			if v.Partner == "Número de Crédito" {
				want = "CR-FULL-1"
			}
			if got := row[f.Internal]; got != want {
				t.Errorf("column %s = %q, want %q", f.Internal, got, want)
			}
		}
		for col, want := range map[string]string{"partner_user": "acme", "partner_nit": "900123456-8",
			"file_name": "partner_CR-FULL-1_x.pdf", "file_size": "1234", "request_id": "req-1", "idempotency_key": "k-full"} {
			if row[col] != want {
				t.Errorf("column %s = %q, want %q", col, row[col], want)
			}
		}
		rec, err := st.GetKey(ctx, "acme", claim.KeyHash)
		if err != nil || rec.State != domain.KeyDone || rec.ReportID != id || rec.FileName != staged.FileName {
			t.Fatalf("key after commit = %+v, %v", rec, err)
		}
	})

	t.Run("claim is unique per user and key", func(t *testing.T) {
		st := open(t)
		first := mustClaim(t, st, "acme", "k1", now)
		again := first
		again.Nonce = ports.NewID()
		existing, err := st.ClaimKey(ctx, again)
		if !errors.Is(err, domain.ErrConflict) || existing.Nonce != first.Nonce || existing.State != domain.KeyPending {
			t.Fatalf("second claim = %+v, %v; want the first and ErrConflict", existing, err)
		}
		// Another user may use the same key.
		mustClaim(t, st, "other", "k1", now)
		// Deleting with a stranger's nonce does nothing; with ours it frees the key.
		if err := st.DeleteKey(ctx, again); err != nil {
			t.Fatal(err)
		}
		if _, err := st.GetKey(ctx, "acme", first.KeyHash); err != nil {
			t.Fatalf("key removed by a stranger: %v", err)
		}
		if err := st.DeleteKey(ctx, first); err != nil {
			t.Fatal(err)
		}
		if _, err := st.GetKey(ctx, "acme", first.KeyHash); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("GetKey after delete = %v, want ErrNotFound", err)
		}
	})

	t.Run("releasing a claim never removes it once done", func(t *testing.T) {
		st := open(t)
		claim := mustClaim(t, st, "acme", "k-done", now)
		if _, err := st.CommitReport(ctx, domain.StagedReport{Report: minimalReport(t, now), ReceivedAt: now, PartnerUser: "acme", PayloadSHA256: "x"}, claim); err != nil {
			t.Fatal(err)
		}
		if err := st.DeleteKey(ctx, claim); err != nil { // claim.State is still pending
			t.Fatal(err)
		}
		if rec, err := st.GetKey(ctx, "acme", claim.KeyHash); err != nil || rec.State != domain.KeyDone {
			t.Fatalf("done record after a pending release: %+v %v", rec, err)
		}
	})

	t.Run("commit needs our claim", func(t *testing.T) {
		st := open(t)
		claim := mustClaim(t, st, "acme", "k2", now)
		stolen := claim
		stolen.Nonce = ports.NewID()
		rep := minimalReport(t, now)
		if _, err := st.CommitReport(ctx, domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PayloadSHA256: "x"}, stolen); err == nil {
			t.Fatal("CommitReport with a claim that is not ours succeeded")
		}
		if n, _ := st.CountReports(ctx); n != 0 {
			t.Fatalf("%d rows after a refused commit, want 0 (the insert must roll back)", n)
		}
	})

	t.Run("concurrent claims: one winner", func(t *testing.T) {
		st := open(t)
		var wg sync.WaitGroup
		wins := make(chan int, 20)
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rec := record("acme", "race", now)
				if _, err := st.ClaimKey(ctx, rec); err == nil {
					wins <- i
				} else if !errors.Is(err, domain.ErrConflict) {
					t.Errorf("claim %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		close(wins)
		if n := len(wins); n != 1 {
			t.Fatalf("%d claims won, want exactly 1", n)
		}
	})

	t.Run("report with its key: one winner among concurrent duplicates", func(t *testing.T) {
		st := open(t)
		rep := minimalReport(t, now)
		var wg sync.WaitGroup
		ids := make(chan int64, 20)
		for i := 0; i < 20; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rec := record("acme", "nofile", now)
				id, existing, err := st.InsertReportWithKey(ctx, domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PayloadSHA256: "p"}, rec)
				switch {
				case err == nil:
					ids <- id
				case errors.Is(err, domain.ErrConflict):
					if existing.State != domain.KeyDone || existing.ReportID == 0 {
						t.Errorf("conflict with %+v; want the winner's done record", existing)
					}
				default:
					t.Errorf("insert %d: %v", i, err)
				}
			}()
		}
		wg.Wait()
		close(ids)
		if n, _ := st.CountReports(ctx); len(ids) != 1 || n != 1 {
			t.Fatalf("%d winners and %d rows, want 1 and 1", len(ids), n)
		}
	})

	t.Run("users", func(t *testing.T) {
		st := open(t)
		u := domain.User{Name: "acme", NIT: "900123456-8", PasswordHash: "$2y$10$abc", Active: true, CreatedAt: now, UpdatedAt: now}
		if err := st.CreateUser(ctx, u); err != nil {
			t.Fatal(err)
		}
		if err := st.CreateUser(ctx, u); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("duplicate user: %v, want ErrConflict", err)
		}
		got, err := st.GetUser(ctx, "acme")
		if err != nil || got.NIT != u.NIT || got.PasswordHash != u.PasswordHash || !got.Active {
			t.Fatalf("GetUser = %+v, %v", got, err)
		}
		if _, err := st.GetUser(ctx, "nobody"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("GetUser(nobody) = %v", err)
		}
		if err := st.SetActive(ctx, "acme", false); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.GetUser(ctx, "acme"); got.Active {
			t.Fatal("user still active")
		}
		if err := st.SetPasswordHash(ctx, "acme", "$2a$12$new"); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.GetUser(ctx, "acme"); got.PasswordHash != "$2a$12$new" {
			t.Fatalf("hash = %q after SetPasswordHash", got.PasswordHash)
		}
		if err := st.SetPasswordHash(ctx, "nobody", "x"); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("SetPasswordHash(nobody) = %v", err)
		}
		if err := st.SetActive(ctx, "nobody", true); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("SetActive(nobody) = %v", err)
		}
		list, err := st.ListUsers(ctx)
		if err != nil || len(list) != 1 {
			t.Fatalf("ListUsers = %v, %v", list, err)
		}
	})
}

func record(user, key string, now time.Time) domain.IdempotencyRecord {
	return domain.IdempotencyRecord{User: user, KeyHash: ports.KeyHash(key, ""), PayloadSHA256: "p",
		State: domain.KeyPending, Nonce: ports.NewID(), CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour)}
}

func mustClaim(t *testing.T, st ports.ReportStore, user, key string, now time.Time) domain.IdempotencyRecord {
	t.Helper()
	rec := record(user, key, now)
	if _, err := st.ClaimKey(context.Background(), rec); err != nil {
		t.Fatalf("ClaimKey: %v", err)
	}
	return rec
}

func minimalReport(t *testing.T, now time.Time) *domain.Report {
	t.Helper()
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(fixture.Minimal(now, "CR-MIN")), domain.DefaultFileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

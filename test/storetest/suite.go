package storetest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// RunReportStore is the one store suite every ports.ReportStore runs:
// each of reportStoreTests on a store of its own, in parallel.
func RunReportStore(t *testing.T, open func(testing.TB) Harness) {
	runEach(t, open, reportStoreTests)
}

// reportStoreTests are the report-store suite, by name: the keys and
// users here, the group commit (suite_batch.go), the sweep's queries
// (suite_sweep.go), the file reservations (suite_reservations.go), the
// look-ups, a partner's and support's (suite_lookup.go).
var reportStoreTests = []namedTest[Harness]{
	{"migrations are idempotent", testMigrationsIdempotent},
	{"full report round trip", testFullRoundTrip},
	{"record is unique per user and key", testRecordUniquePerKey},
	{"report with its key: one winner among concurrent duplicates", testOneWinnerAmongDuplicates},
	{"users", testUsers},
	{"concurrent distinct reports: all stored, distinct ids", testConcurrentDistinct},
	{"duplicates arriving together: one row, the others get the winner's record", testDuplicatesTogether},
	{"a refused row fails only itself", testRefusedRowAlone},
	{"a caller that gave up before its batch stores nothing", testGaveUpBeforeBatch},
	{"sweep: named files and rows with files", testSweepNamedFiles},
	{"sweep: expired records purged in bounded batches", testSweepPurgesKeys},
	{"reservations: a tombstone refuses the report that would name its file", testTombstoneRefusesReport},
	{"reservations: a stored report's file cannot be tombstoned", testStoredFileKept},
	{"reservations: each stored file is listed for its check once", testReservedFilesListedOnce},
	{"reservations: old tombstones purged in bounded batches", testTombstonesPurged},
	{"a report reads back as it was stored", testLookupReadsBack},
	{"another partner's report is not found", testLookupOtherPartner},
	{"list filters and pages", testListFiltersAndPages},
	{"a page's fields read back by id, only the partner's", testLookupFields},
	{"support reads any partner's report", testArchiveReadsAny},
	{"support lists every partner newest first", testArchiveListsNewestFirst},
	{"support lists in the look-ups' order, newest first", testArchiveListsInReceiptOrder},
}

// testMigrationsIdempotent: migrating a migrated store does nothing, and its schema checks.
func testMigrationsIdempotent(t *testing.T, h Harness) {
	ctx := context.Background()
	st := h.Schema
	if st == nil {
		t.Skip("no schema")
	}
	if applied, err := st.Migrate(ctx); err != nil || len(applied) != 0 {
		t.Fatalf("second Migrate = %v, %v; want nothing to do", applied, err)
	}
	if err := st.CheckSchema(ctx); err != nil {
		t.Fatal(err)
	}
}

// testFullRoundTrip: every field of a full report is stored as written, beside its metadata, and its key names the row.
func testFullRoundTrip(t *testing.T, h Harness) {
	ctx := context.Background()
	now := reportNow()
	st := h.Store
	body := fixture.FullBody(now, "CR-FULL-1", nil)
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(body), fixture.FileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	rec := record("acme", "k-full", now)
	rec.FileName = "partner_CR-FULL-1_x.pdf"
	staged := domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PartnerNIT: "900123456-8",
		FileName: "partner_CR-FULL-1_x.pdf", FileSize: 1234, FileSHA256: fmt.Sprintf("%064x", 7),
		RequestID: "req-1", IdempotencyKey: "k-full", PayloadSHA256: fmt.Sprintf("%064x", 9)}
	id, _, err := st.StoreReport(ctx, staged, rec)
	if err != nil || id <= 0 {
		t.Fatalf("StoreReport = %d, %v", id, err)
	}
	row, err := h.Row(ctx, id)
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
	got, err := st.GetKey(ctx, "acme", rec.KeyHash)
	if err != nil || got.State != domain.KeyDone || got.ReportID != id || got.FileName != staged.FileName {
		t.Fatalf("key after commit = %+v, %v", got, err)
	}
}

// testRecordUniquePerKey: record is unique per user and key.
func testRecordUniquePerKey(t *testing.T, h Harness) {
	ctx := context.Background()
	now := reportNow()
	st := h.Store
	rep := domain.StagedReport{Report: minimalReport(t, now), ReceivedAt: now, PartnerUser: "acme", PayloadSHA256: "p"}
	first := record("acme", "k1", now)
	if _, _, err := st.StoreReport(ctx, rep, first); err != nil {
		t.Fatal(err)
	}
	again := record("acme", "k1", now)
	_, existing, err := st.StoreReport(ctx, rep, again)
	if !errors.Is(err, domain.ErrConflict) || existing.Nonce != first.Nonce || existing.State != domain.KeyDone {
		t.Fatalf("second insert = %+v, %v; want the first and ErrConflict", existing, err)
	}
	// Another user may use the same key; user names are byte-exact.
	for _, u := range []string{"other", "ACME", "Acme", "acmé", "acme   "} {
		if _, err := st.GetKey(ctx, u, first.KeyHash); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("GetKey(%q) = %v, want ErrNotFound", u, err)
		}
		if _, _, err := st.StoreReport(ctx, rep, record(u, "k1", now)); err != nil {
			t.Fatalf("user %q: %v", u, err)
		}
	}
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
}

// testOneWinnerAmongDuplicates: report with its key: one winner among concurrent duplicates.
func testOneWinnerAmongDuplicates(t *testing.T, h Harness) {
	ctx := context.Background()
	now := reportNow()
	st := h.Store
	rep := minimalReport(t, now)
	var wg sync.WaitGroup
	ids := make(chan int64, 20)
	for i := 0; i < 20; i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rec := record("acme", "nofile", now)
			id, existing, err := st.StoreReport(ctx, domain.StagedReport{Report: rep, ReceivedAt: now, PartnerUser: "acme", PayloadSHA256: "p"}, rec)
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
	if n, _ := h.Count(ctx); len(ids) != 1 || n != 1 {
		t.Fatalf("%d winners and %d rows, want 1 and 1", len(ids), n)
	}
}

// testUsers: users are created once, found by their exact bytes, deactivated, rehashed and given new passwords (only a new password is dated).
func testUsers(t *testing.T, h Harness) {
	ctx := context.Background()
	now := reportNow()
	st := h.Users
	if st == nil {
		t.Skip("no user store")
	}
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
	for _, name := range []string{"nobody", "ACME", "Acme", "acmé", "acme   ", " acme", "acme\x00"} {
		if _, err := st.GetUser(ctx, name); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("GetUser(%q) = %v, want ErrNotFound: names are compared byte for byte", name, err)
		}
	}
	if err := st.SetActive(ctx, "acme", false); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.GetUser(ctx, "acme"); got.Active {
		t.Fatal("user still active")
	}
	if err := st.SetPasswordHash(ctx, "acme", u.PasswordHash, "$2a$12$new"); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.GetUser(ctx, "acme"); got.PasswordHash != "$2a$12$new" {
		t.Fatalf("hash = %q after SetPasswordHash", got.PasswordHash)
	}
	// A rehash from a stale read (a password change came between): the
	// change stands.
	if err := st.SetPasswordHash(ctx, "acme", u.PasswordHash, "$2a$12$stale"); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("SetPasswordHash from a replaced hash = %v, want domain.ErrConflict", err)
	}
	if got, _ := st.GetUser(ctx, "acme"); got.PasswordHash != "$2a$12$new" {
		t.Fatalf("hash = %q after a stale SetPasswordHash, want the newer one kept", got.PasswordHash)
	}
	if err := st.SetPasswordHash(ctx, "nobody", "x", "y"); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("SetPasswordHash(nobody) = %v", err)
	}
	if got, _ := st.GetUser(ctx, "acme"); !got.PasswordChangedAt.IsZero() {
		t.Fatalf("PasswordChangedAt = %v before any change", got.PasswordChangedAt)
	}
	changed := now.Add(1500 * time.Millisecond).Truncate(time.Microsecond)
	if err := st.ChangePassword(ctx, "acme", "$2a$12$newer", changed); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.GetUser(ctx, "acme"); got.PasswordHash != "$2a$12$newer" || !got.PasswordChangedAt.Equal(changed) {
		t.Fatalf("after ChangePassword: hash %q, changed %v, want %v", got.PasswordHash, got.PasswordChangedAt, changed)
	}
	// A rehash (same password, new cost) keeps the tokens: not a change.
	if err := st.SetPasswordHash(ctx, "acme", "$2a$12$newer", "$2a$12$rehashed"); err != nil {
		t.Fatal(err)
	}
	if got, _ := st.GetUser(ctx, "acme"); !got.PasswordChangedAt.Equal(changed) {
		t.Fatalf("SetPasswordHash moved PasswordChangedAt to %v", got.PasswordChangedAt)
	}
	if err := st.ChangePassword(ctx, "nobody", "x", changed); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("ChangePassword(nobody) = %v", err)
	}
	if err := st.SetActive(ctx, "nobody", true); !errors.Is(err, domain.ErrNotFound) {
		t.Fatalf("SetActive(nobody) = %v", err)
	}
	list, err := st.ListUsers(ctx)
	if err != nil || len(list) != 1 {
		t.Fatalf("ListUsers = %v, %v", list, err)
	}
}

var nonces atomic.Int64

func record(user, key string, now time.Time) domain.IdempotencyRecord {
	return domain.IdempotencyRecord{User: user, KeyHash: domain.KeyHash(key, ""), PayloadSHA256: "p",
		State: domain.KeyDone, Nonce: fmt.Sprintf("%032d", nonces.Add(1)), CreatedAt: now, ExpiresAt: now.Add(24 * time.Hour)}
}

func minimalReport(t *testing.T, now time.Time) *domain.Report {
	t.Helper()
	rep, err := domain.DefaultCatalogue().MapReport(fixture.Members(fixture.Minimal(now, "CR-MIN")), fixture.FileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func minimalMembers(now time.Time, credit string) []domain.RawField {
	return fixture.Members(fixture.Minimal(now, credit))
}

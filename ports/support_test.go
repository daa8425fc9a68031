package ports_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// brokenArchive is an archive whose look-ups fail.
type brokenArchive struct{ calls *int }

func (b brokenArchive) FindReport(context.Context, int64) (domain.RecordedReport, error) {
	*b.calls++
	return domain.RecordedReport{}, errors.New("connection refused")
}

func (b brokenArchive) FindReports(context.Context, ports.ArchiveFilter) ([]domain.ReportRecord, error) {
	*b.calls++
	return nil, errors.New("connection refused")
}

// brokenFiles is an upload store that does not answer.
type brokenFiles struct{}

func (brokenFiles) Exists(context.Context, string) (bool, error) {
	return false, errors.New("bucket unreachable")
}

func TestNewSupportRefusesNil(t *testing.T) {
	if s, err := ports.NewSupport(nil); err == nil || s != nil {
		t.Fatalf("NewSupport(nil) = %v, %v; want an error", s, err)
	}
}

// supportFixture stores, through the use case, reports of acme (keyed
// acme-K<i>, with a file) and of other (unkeyed, no file), alternating,
// one a minute from t0.
func supportFixture(t *testing.T, n int) (*fakes.ReportStore, *fakes.Uploads, *ports.Support) {
	t.Helper()
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	reports := newReports(t, store, up, clock)
	for i := range n {
		sub := submission(withFile(fmt.Sprintf("CR-%d", i)), fmt.Sprintf("acme-K%d", i))
		other := submission(fixture.Minimal(t0, fmt.Sprintf("CR-%d", i)), "")
		other.Principal = ports.Principal{User: "other", NIT: "8300537006"}
		for _, s := range []ports.Submission{sub, other} {
			if _, err := reports.Submit(context.Background(), s); err != nil {
				t.Fatal(err)
			}
			clock.Add(time.Minute)
		}
	}
	s, err := ports.NewSupport(store)
	if err != nil {
		t.Fatal(err)
	}
	return store, up, s
}

// TestSupportListsEveryPartnerNewestFirst: without a partner the list has
// every partner's reports, newest first; following Next visits each once;
// the filters narrow it; keys show as their hash prefix and NITs masked.
func TestSupportListsEveryPartnerNewestFirst(t *testing.T) {
	_, _, s := supportFixture(t, 5)
	ctx := context.Background()
	var ids []int64
	q := ports.SupportQuery{Limit: 3}
	for pages := 0; ; pages++ {
		page, err := s.List(ctx, q)
		if err != nil || pages > 10 {
			t.Fatalf("page %d: %v", pages, err)
		}
		for _, r := range page.Records {
			ids = append(ids, r.ID)
			if r.PartnerUser == "acme" && (r.KeyHash == "" || r.KeyHash == r.CreditNumber || len(r.KeyHash) != 12) {
				t.Errorf("report %d: key shown as %q", r.ID, r.KeyHash)
			}
			if strings.Contains(fmt.Sprintf("%+v", r), "acme-K") || !strings.Contains(r.PartnerNIT, "****") {
				t.Errorf("report %d shows its key or its partner's NIT: %+v", r.ID, r)
			}
		}
		if page.Next == 0 {
			break
		}
		q.Before = page.Next
	}
	if len(ids) != 10 {
		t.Fatalf("%d reports listed, want 10: %v", len(ids), ids)
	}
	for i := 1; i < len(ids); i++ {
		if ids[i] >= ids[i-1] {
			t.Fatalf("not newest first: %v", ids)
		}
	}
	for _, tt := range []struct {
		name string
		q    ports.SupportQuery
		want int
	}{
		{"one partner", ports.SupportQuery{User: "other"}, 5},
		{"a credit number, every partner", ports.SupportQuery{CreditNumber: "CR-3"}, 2},
		{"a credit number of one partner", ports.SupportQuery{User: "acme", CreditNumber: "CR-3"}, 1},
		{"a key", ports.SupportQuery{User: "acme", IdempotencyKey: "acme-K2"}, 1},
		{"a key of another partner", ports.SupportQuery{User: "other", IdempotencyKey: "acme-K2"}, 0},
		{"from", ports.SupportQuery{From: t0.Add(6 * time.Minute)}, 4},
		{"a range", ports.SupportQuery{From: t0.Add(2 * time.Minute), To: t0.Add(4 * time.Minute)}, 2},
	} {
		page, err := s.List(ctx, tt.q)
		if err != nil || len(page.Records) != tt.want || page.Next != 0 {
			t.Errorf("%s: %d records (next %d), %v; want %d", tt.name, len(page.Records), page.Next, err, tt.want)
		}
	}
	if page, _ := s.List(ctx, ports.SupportQuery{User: "acme", IdempotencyKey: "acme-K2"}); len(page.Records) == 1 &&
		page.Records[0].KeyHash != domain.HashPrefix("acme-K2") {
		t.Errorf("key hash %q, want %q", page.Records[0].KeyHash, domain.HashPrefix("acme-K2"))
	}
}

// TestSupportRefusesBadParameters: each bad parameter is refused by name,
// before the store is asked.
func TestSupportRefusesBadParameters(t *testing.T) {
	calls := 0
	s, _ := ports.NewSupport(brokenArchive{&calls})
	for name, q := range map[string]ports.SupportQuery{
		"user":   {User: "a b"},
		"credit": {CreditNumber: "CR/1"},
		"key":    {IdempotencyKey: "k"},
		"to":     {From: t0, To: t0},
		"before": {Before: -1},
		"limit":  {Limit: ports.SupportPageMax + 1},
	} {
		_, err := s.List(context.Background(), q)
		if !errors.Is(err, domain.ErrInvalidInput) || !strings.Contains(err.Error(), "invalid "+name+":") {
			t.Errorf("%s: %v", name, err)
		}
		// A bound is told in the domain's words.
		bounds := map[string]domain.Bound{"user": domain.UserNameBound, "credit": domain.CreditNumberBound, "limit": domain.PageLimitBound}
		if b, ok := bounds[name]; ok && err != nil && err.Error() != "invalid "+name+": "+b.En {
			t.Errorf("%s: %v, want the bound %q", name, err, b.En)
		}
	}
	_, err := s.List(context.Background(), ports.SupportQuery{User: "acme", IdempotencyKey: "a\x01"})
	if want := "invalid key: " + domain.IdempotencyKeyBound.En; err == nil || err.Error() != want {
		t.Errorf("a key with a control character: %v, want %q", err, want)
	}
	if calls != 0 {
		t.Errorf("the store was asked %d times", calls)
	}
	if _, err := s.List(context.Background(), ports.SupportQuery{}); !errors.Is(err, domain.ErrUnavailable) || calls != 1 {
		t.Errorf("a failing store: %v", err)
	}
}

// TestSupportShow: a report of any partner, with its fields (the
// identification number masked) and its file's state; a missing report
// and a bad id are told apart from a failing store.
func TestSupportShow(t *testing.T) {
	_, up, s := supportFixture(t, 1)
	ctx := context.Background()
	r, err := s.Show(ctx, 1, up)
	if err != nil || r.PartnerUser != "acme" || r.File != ports.FilePresent || r.FileName == "" || r.KeyHash != domain.HashPrefix("acme-K0") {
		t.Fatalf("Show(1) = %+v, %v", r.SupportRecord, err)
	}
	shown := map[string]string{}
	for _, f := range r.Fields {
		shown[f.Field.Internal] = f.Text
	}
	if shown["nit_cc"] != "10******50" || shown["numero_credito"] != "CR-0" || shown["primer_nombre"] != "Ana" {
		t.Errorf("fields: %v", shown)
	}
	if err := up.Remove(ctx, r.FileName); err != nil {
		t.Fatal(err)
	}
	if r, err := s.Show(ctx, 1, up); err != nil || r.File != ports.FileMissing {
		t.Errorf("file removed: %s, %v", r.File, err)
	}
	if r, err := s.Show(ctx, 2, up); err != nil || r.PartnerUser != "other" || r.File != ports.FileNone || r.KeyHash != "" {
		t.Errorf("Show(2) = %+v, %v", r.SupportRecord, err)
	}
	if r, err := s.Show(ctx, 1, brokenFiles{}); !errors.Is(err, domain.ErrUnavailable) || r.File != ports.FileUnknown || r.ID != 1 {
		t.Errorf("upload store down: %s, %v", r.File, err)
	}
	if _, err := s.Show(ctx, 3, up); !errors.Is(err, domain.ErrNotFound) {
		t.Errorf("no report 3: %v", err)
	}
	if _, err := s.Show(ctx, 0, up); !errors.Is(err, domain.ErrInvalidInput) {
		t.Errorf("id 0: %v", err)
	}
	calls := 0
	broken, _ := ports.NewSupport(brokenArchive{&calls})
	if _, err := broken.Show(ctx, 1, up); !errors.Is(err, domain.ErrUnavailable) || errors.Is(err, domain.ErrNotFound) {
		t.Errorf("a failing store: %v", err)
	}
}

package ports_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// TestSubmitOutcomeUnknownSaysSo: a commit whose outcome is unknown is
// answered with code outcome_unknown (the report may be stored: retry with
// the same key, never a new one); a store that stored nothing keeps
// store_failed. Both carry the store's message and are 503s.
func TestSubmitOutcomeUnknownSaysSo(t *testing.T) {
	for _, c := range []struct {
		name string
		set  func(*fakes.ReportStore)
		code string
	}{
		{"commit answer lost", func(s *fakes.ReportStore) { s.LostAnswer = true }, "outcome_unknown"},
		{"nothing stored", func(s *fakes.ReportStore) { s.Fail = errors.New("connection refused") }, "store_failed"},
	} {
		t.Run(c.name, func(t *testing.T) {
			clock := fakes.NewClock(t0)
			store, up := fixtures(clock)
			c.set(store)
			_, err := newReports(t, store, up, clock).Submit(context.Background(), submission(withFile("CR-1"), "k-1"))
			var de *domain.Error
			if !errors.As(err, &de) || !errors.Is(err, domain.ErrUnavailable) || de.Code != c.code || de.Message != domain.MsgStoreFailed {
				t.Fatalf("err = %v (%+v); want ErrUnavailable, code %s, the store's message", err, de, c.code)
			}
		})
	}
}

// TestReplayNeverNamesAMissingFile: a retry of a stored report whose file
// has gone (removed by hand, lost with a disk) is not answered 200 naming
// it: the replay looks for the file first and answers 503.
func TestReplayNeverNamesAMissingFile(t *testing.T) {
	c := keyedFirst(t)
	svc, store, up, sub, first := c.svc, c.store, c.up, c.sub, c.first
	if again, err := svc.Submit(context.Background(), sub); err != nil || !again.Replayed {
		t.Fatalf("replay with the file there = %+v, %v", again, err)
	}
	if err := up.Remove(context.Background(), first.FileName); err != nil {
		t.Fatal(err)
	}
	again, err := svc.Submit(context.Background(), sub)
	var de *domain.Error
	if !errors.As(err, &de) || !errors.Is(err, domain.ErrUnavailable) || de.Code != "file_store_failed" {
		t.Fatalf("replay of a report whose file is missing = %+v, %v; want 503 file_store_failed", again, err)
	}
	if !strings.Contains(err.Error(), first.FileName) {
		t.Fatalf("the cause does not name the file: %v", err)
	}
	if store.Count() != 1 || up.Count() != 0 {
		t.Fatalf("%d rows, %d files; the retry must store nothing new", store.Count(), up.Count())
	}
}

// TestSubmitRetriesWhenTheRecordIsGone: a store that found the key taken
// but its record gone (ports.ErrRecordGone) is asked again, and the
// report is stored once, not refused with 503.
func TestSubmitRetriesWhenTheRecordIsGone(t *testing.T) {
	clock := fakes.NewClock(t0)
	store, up := fixtures(clock)
	gone := 1
	store.Refuse(func(domain.StagedReport) error {
		if gone > 0 {
			gone--
			return ports.ErrRecordGone
		}
		return nil
	})
	r, err := newReports(t, store, up, clock).Submit(context.Background(), submission(withFile("CR-1"), "k-1"))
	if err != nil || r.ID != 1 || r.Replayed || gone != 0 {
		t.Fatalf("Submit = %+v, %v (gone answers left %d); want the report stored", r, err, gone)
	}
	if store.Count() != 1 || up.Count() != 1 {
		t.Fatalf("%d rows %d files, want 1 and 1", store.Count(), up.Count())
	}
}

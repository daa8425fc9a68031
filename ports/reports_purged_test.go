package ports_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// TestReplayOfAPurgedReport: the retention purge deleted a report (and its
// file) while its idempotency record lives. The same report again, with
// or without a file, keyed or not, is refused with ErrGone report_purged
// (410): not a 200 naming a report that is not there, not
// a misleading 503 file_store_failed, and nothing is stored again under
// the key. With a new Idempotency-Key it is stored anew.
func TestReplayOfAPurgedReport(t *testing.T) {
	for name, tt := range map[string]struct {
		body map[string]any
		key  string
	}{
		"with a file, unkeyed":    {withFile("CR-P-1"), ""},
		"with a file, keyed":      {withFile("CR-P-2"), "k-2"},
		"without a file, keyed":   {fixture.Minimal(t0, "CR-P-3"), "k-3"},
		"without a file, unkeyed": {fixture.Minimal(t0, "CR-P-4"), ""},
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			clock := fakes.NewClock(t0)
			store, up := fixtures(clock)
			svc := newReports(t, store, up, clock)
			first, err := svc.Submit(ctx, submission(tt.body, tt.key))
			if err != nil {
				t.Fatal(err)
			}
			clock.Add(time.Second)       // the record lives (a retention shorter than its TTL)
			store.DeleteReport(first.ID) // the purge: the row, then its file
			if first.FileName != "" {
				if err := up.Remove(ctx, first.FileName); err != nil {
					t.Fatal(err)
				}
			}
			_, err = svc.Submit(ctx, submission(tt.body, tt.key))
			var de *domain.Error
			if !domain.IsKind(err, domain.ErrGone) || !errors.As(err, &de) || de.Code != "report_purged" {
				t.Fatalf("the same report after its purge: %v; want ErrGone report_purged", err)
			}
			if store.Count() != 1 || up.Count() != 0 {
				t.Fatalf("%d rows stored, %d files kept; want nothing stored again", store.Count(), up.Count())
			}
			again, err := svc.Submit(ctx, submission(tt.body, "a new key"))
			if err != nil || again.Replayed || again.ID == first.ID {
				t.Fatalf("with a new key: %+v, %v; want it stored anew", again, err)
			}
		})
	}
}

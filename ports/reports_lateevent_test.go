package ports_test

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// slowUploads is the fake upload store whose Save takes took on the
// fake clock: a file check and write on a slow disk.
type slowUploads struct {
	*fakes.Uploads
	clock *fakes.Clock
	took  time.Duration
}

func (u slowUploads) Save(ctx context.Context, credit string, at time.Time, f *domain.File) (string, error) {
	u.clock.Add(u.took)
	return u.Uploads.Save(ctx, credit, at, f)
}

// TestSlowReportsEventIsDatedLater: a report whose file took 4 s to
// write after its receipt goes to the store with its report.received
// event dated 4 s - EventSlack (1.25 s) after its receipt, which it
// keeps; one whose file took less than the slack, and every report
// under a zero slack, at its receipt.
func TestSlowReportsEventIsDatedLater(t *testing.T) {
	for _, c := range []struct {
		took, slack, moved time.Duration
	}{
		{4 * time.Second, 1250 * time.Millisecond, 2750 * time.Millisecond},
		{time.Second, 1250 * time.Millisecond, 0},
		{4 * time.Second, 0, 0},
	} {
		clock := fakes.NewClock(t0)
		store, up := fixtures(clock)
		var staged domain.StagedReport
		store.Refuse(func(r domain.StagedReport) error { staged = r; return nil })
		o := reportsOptions()
		o.EventSlack = c.slack
		svc, err := ports.NewReports(domain.DefaultCatalogue(), fixture.FileRules(), store, slowUploads{up, clock, c.took}, clock, o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := svc.Submit(context.Background(), submission(withFile("CR-SLOW"), ""))
		if err != nil {
			t.Fatal(err)
		}
		if !got.ReceivedAt.Equal(t0) || !staged.ReceivedAt.Equal(t0) {
			t.Errorf("took %s: received at %s (stored %s), want %s", c.took, got.ReceivedAt, staged.ReceivedAt, t0)
		}
		if want := t0.Add(c.moved); !staged.EventTime().Equal(want) {
			t.Errorf("took %s, slack %s: event dated %s, want %s", c.took, c.slack, staged.EventTime(), want)
		}
	}
}

package fsupload

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// TestQuarantineDatesByItsClock: a file moved to quarantine is dated by
// the clock the store was given (the sweep's retention is judged by the
// same clock), not the system's; Open refuses no clock.
func TestQuarantineDatesByItsClock(t *testing.T) {
	t.Parallel()
	at := time.Date(2031, 1, 2, 3, 4, 5, 0, time.UTC)
	s, err := Open(t.TempDir(), Options{Clock: fakes.NewClock(at)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close() })
	ctx := context.Background()
	name, err := s.Save(ctx, "CR-1", at, fixture.File(fixture.PDF(300)))
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Quarantine(ctx, name); err != nil {
		t.Fatal(err)
	}
	var got []ports.StoredObject
	if err := s.WalkQuarantine(ctx, func(o ports.StoredObject) error { got = append(got, o); return nil }); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].ModTime.Equal(at) {
		t.Fatalf("quarantine = %+v, want %s dated %s", got, name, at)
	}
	if _, err := Open(t.TempDir(), Options{}); err == nil {
		t.Fatal("Open without a clock: no error")
	}
}

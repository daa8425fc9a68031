package ports_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// purgeStore holds events by creation time and purges as the store does.
type purgeStore struct {
	at    []time.Time
	calls int
	fail  error
}

func (s *purgeStore) PurgeEvents(_ context.Context, before time.Time, limit int, apply bool) (int64, error) {
	s.calls++
	if s.fail != nil {
		return 0, s.fail
	}
	var n int64
	kept := s.at[:0]
	for _, t := range s.at {
		if t.Before(before) && (!apply || n < int64(limit)) {
			n++
			if apply {
				continue
			}
		}
		kept = append(kept, t)
	}
	s.at = kept
	return n, nil
}

// TestEventPurge: events older than events.retention are deleted batch by
// batch until none is left, and only counted on a dry run; a failing
// store is unavailable.
func TestEventPurge(t *testing.T) {
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	s := &purgeStore{}
	for i := range 7 {
		s.at = append(s.at, now.Add(-31*24*time.Hour+time.Duration(i)*time.Minute))
	}
	s.at = append(s.at, now.Add(-29*24*time.Hour))
	p, err := ports.NewEventPurge(s, fakes.NewClock(now), 30*24*time.Hour, 3)
	if err != nil {
		t.Fatal(err)
	}
	if n, before, err := p.Run(context.Background(), false); n != 7 || err != nil || len(s.at) != 8 || !before.Equal(now.Add(-30*24*time.Hour)) {
		t.Fatalf("dry run: %d %s %v, %d left", n, before, err, len(s.at))
	}
	s.calls = 0
	if n, _, err := p.Run(context.Background(), true); n != 7 || err != nil || len(s.at) != 1 || s.calls != 3 {
		t.Fatalf("purge: %d %v, %d left after %d statements", n, err, len(s.at), s.calls)
	}
	s.fail = errors.New("down")
	if _, _, err := p.Run(context.Background(), true); !domain.IsKind(err, domain.ErrUnavailable) {
		t.Fatalf("a failing store: %v", err)
	}
	if _, err := ports.NewEventPurge(s, fakes.NewClock(now), 0, 3); err == nil {
		t.Error("a retention of 0 was taken")
	}
}

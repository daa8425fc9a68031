package domain

import (
	"sort"
	"testing"
	"time"
)

// TestEventIDOrder: public ids sort as text in (created_at, row id)
// order, whatever the row ids, and read back to what made them.
func TestEventIDOrder(t *testing.T) {
	base := time.Date(2026, 11, 28, 0, 0, 0, 0, time.UTC)
	type ev struct {
		at  time.Time
		seq int64
	}
	// Row ids interleaved as Galera's auto-increment makes them: a later
	// event may have a smaller id.
	in := []ev{{base.Add(3), 2}, {base, 9}, {base.Add(1), 30}, {base.Add(1), 4}, {base.Add(time.Hour), 1}}
	ids := make([]string, len(in))
	for i, e := range in {
		ids[i] = EventID(e.at, e.seq)
	}
	sort.Strings(ids)
	want := []string{EventID(base, 9), EventID(base.Add(1), 4), EventID(base.Add(1), 30), EventID(base.Add(3), 2), EventID(base.Add(time.Hour), 1)}
	for i := range want {
		if ids[i] != want[i] {
			t.Fatalf("order %v, want %v", ids, want)
		}
	}
	at, seq, ok := ParseEventID(want[2])
	if !ok || !at.Equal(base.Add(1)) || seq != 30 {
		t.Errorf("parse %s: %s %d %v", want[2], at, seq, ok)
	}
}

func TestParseEventIDStrict(t *testing.T) {
	good := EventID(time.Unix(1700000000, 5), 77)
	for _, bad := range []string{"", "evt_", good[:len(good)-1], good + "0", "EVT" + good[3:], good[:4] + "X" + good[5:],
		"evt_" + "0000000000000000" + "0000000000000000", "evt_" + "8000000000000000" + "0000000000000001"} {
		if _, _, ok := ParseEventID(bad); ok {
			t.Errorf("%q read as an id", bad)
		}
	}
	upper := good[:4] + "ABC" + good[7:]
	if _, _, ok := ParseEventID(upper); ok {
		t.Errorf("upper-case hex %q read as an id", upper)
	}
}

func TestEventTypes(t *testing.T) {
	for _, st := range []ReportStatus{StatusReceived, StatusAccepted, StatusRejected} {
		if EventOf(st).Status() != st {
			t.Errorf("%s round trip", st)
		}
	}
	if _, ok := ParseEventType("report.deleted"); ok {
		t.Error("unknown type read")
	}
}

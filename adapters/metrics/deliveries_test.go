package metrics

import (
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lender/disbursementd/domain"
)

// gathered reads reg's samples: each series as name{label=value}, its
// value (a histogram's count, and its sum as name_sum).
func gathered(t *testing.T, reg *prometheus.Registry) map[string]float64 {
	t.Helper()
	families, err := reg.Gather()
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for _, f := range families {
		for _, m := range f.GetMetric() {
			key := f.GetName()
			for _, l := range m.GetLabel() {
				key += "{" + l.GetName() + "=" + l.GetValue() + "}"
			}
			switch {
			case m.GetCounter() != nil:
				out[key] = m.GetCounter().GetValue()
			case m.GetGauge() != nil:
				out[key] = m.GetGauge().GetValue()
			case m.GetHistogram() != nil:
				out[key] = float64(m.GetHistogram().GetSampleCount())
				out[key+"_sum"] = m.GetHistogram().GetSampleSum()
			}
		}
	}
	return out
}

// TestDeliveriesExportWhatTheWorkersSay: each attempt's class is counted
// under its outcome, with its time; a delivery given up is gave_up; the
// backlog sets both gauges; every outcome is exported from the start;
// registering twice on one registry fails.
func TestDeliveriesExportWhatTheWorkersSay(t *testing.T) {
	t.Parallel()
	reg := prometheus.NewRegistry()
	m, err := NewDeliveries(reg)
	if err != nil {
		t.Fatal(err)
	}
	const deliveries = "disbursementd_webhook_deliveries_total{outcome="
	start := gathered(t, reg)
	for _, o := range Outcomes {
		if v, ok := start[deliveries+o+"}"]; !ok || v != 0 {
			t.Errorf("outcome %s at start: %v %v, want 0", o, v, ok)
		}
	}
	for class, n := range map[string]int{"": 3, domain.AttemptTimeout: 2, domain.AttemptRefusedAddress: 1,
		domain.AttemptHTTPStatus: 1, domain.AttemptTLS: 1, domain.AttemptConnection: 1} {
		for range n {
			m.Attempted(class, 250*time.Millisecond)
		}
	}
	m.GaveUp()
	m.Backlog(7, 90*time.Minute)
	got := gathered(t, reg)
	for key, want := range map[string]float64{
		deliveries + OutcomeDelivered + "}": 3, deliveries + OutcomeTimeout + "}": 2, deliveries + OutcomeRefusedAddress + "}": 1,
		deliveries + OutcomeFailedAttempt + "}": 3, deliveries + OutcomeGaveUp + "}": 1,
		"disbursementd_webhook_attempt_seconds": 9, "disbursementd_webhook_attempt_seconds_sum": 2.25,
		"disbursementd_events_undelivered": 7, "disbursementd_events_oldest_undelivered_seconds": 5400,
	} {
		if got[key] != want {
			t.Errorf("%s: %v, want %v", key, got[key], want)
		}
	}
	if _, err := NewDeliveries(reg); err == nil {
		t.Error("a second registration on one registry passed")
	}
	if _, err := NewDeliveries(nil); err == nil {
		t.Error("no registerer: accepted")
	}
}

package httpapi

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lender/disbursementd/adapters/metrics"
)

// metricValue reads the series name (a counter or gauge without labels)
// from the registry srv reports to, as a scrape of /metrics would.
func metricValue(t *testing.T, srv *Server, name string) float64 {
	t.Helper()
	m, ok := srv.metrics.(*metrics.Metrics)
	if !ok {
		t.Fatalf("the server reports to %T, not the service's metrics", srv.metrics)
	}
	families, err := m.Registerer().(prometheus.Gatherer).Gather()
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range families {
		if f.GetName() != name {
			continue
		}
		if len(f.GetMetric()) != 1 {
			t.Fatalf("%s has %d series, want 1", name, len(f.GetMetric()))
		}
		s := f.GetMetric()[0]
		if c := s.GetCounter(); c != nil {
			return c.GetValue()
		}
		return s.GetGauge().GetValue()
	}
	t.Fatalf("no series %s", name)
	return 0
}

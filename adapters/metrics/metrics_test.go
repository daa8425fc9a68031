package metrics

import (
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/ports"
)

// TestSeriesKeepTheirNames: the service's series keep the names and
// labels the alert rules, the dashboards and the guides name, whichever
// package reports to them; each method reaches its series.
func TestSeriesKeepTheirNames(t *testing.T) {
	t.Parallel()
	m := New()
	m.Request("/v1/reports", "GET", 200, time.Millisecond)
	m.InFlight(1)
	m.Receiving(1)
	m.BytesReserved(42)
	m.ReportStored(7)
	m.ReportReplayed()
	m.ReportRefused("invalid")
	m.StoreError()
	m.Overloaded()
	m.LookupThrottled()
	m.LookupDelayed()
	m.BodyTooSlow()
	m.Exchange("ok")
	m.Ready("store", true)
	m.ObserveUpstream("ok", time.Millisecond)
	m.ObserveSweep(ports.SweepReport{Counts: map[string]int64{ports.FoundMissingFile: 2}, Quarantined: 3})
	if err := m.Build("v", "c"); err != nil {
		t.Fatal(err)
	}
	if err := m.StoreConflicts(func() int64 { return 4 }); err != nil {
		t.Fatal(err)
	}
	if err := m.StoreNode(func() int { return 2 }, func() int64 { return 3 }); err != nil {
		t.Fatal(err)
	}
	if err := m.StoreRowMisses(func() int64 { return 5 }); err != nil {
		t.Fatal(err)
	}
	if err := m.StoreRowRefusals(func() int64 { return 6 }); err != nil {
		t.Fatal(err)
	}
	rec := httptest.NewRecorder()
	m.Handler().ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
	scrape := rec.Body.String()
	for _, series := range []string{
		`disbursementd_http_requests_total{method="GET",route="/v1/reports",status="200"} 1`,
		`disbursementd_http_request_duration_seconds_count{method="GET",route="/v1/reports"} 1`,
		`disbursementd_http_in_flight_requests 1`,
		`disbursementd_report_bodies_receiving 1`,
		`disbursementd_report_bytes_reserved 42`,
		`disbursementd_reports_stored_total 1`,
		`disbursementd_file_bytes_written_total 7`,
		`disbursementd_reports_replayed_total 1`,
		`disbursementd_reports_refused_total{reason="invalid"} 1`,
		`disbursementd_store_errors_total 1`,
		`disbursementd_reports_overloaded_total 1`,
		`disbursementd_lookups_throttled_total 1`,
		`disbursementd_lookups_delayed_total 1`,
		`disbursementd_report_bodies_too_slow_total 1`,
		`disbursementd_token_exchanges_total{outcome="ok"} 1`,
		`disbursementd_ready{check="store"} 1`,
		`disbursementd_store_node 2`,
		`disbursementd_store_node_moves_total 3`,
		`disbursementd_upstream_login_duration_seconds_count{outcome="ok"} 1`,
		`disbursementd_missing_files_total 2`,
		`disbursementd_sweep_runs_total{outcome="ok"} 1`,
		`disbursementd_sweep_findings_total{kind="missing_file"} 2`,
		`disbursementd_sweep_quarantined_files 3`,
		`disbursementd_store_conflicts_total 4`,
		`disbursementd_store_multirow_misses_total 5`,
		`disbursementd_store_multirow_refused_total 6`,
	} {
		if !slices.Contains(strings.Split(scrape, "\n"), series) {
			t.Errorf("no line %s in /metrics", series)
		}
	}
	if !strings.Contains(scrape, `disbursementd_build_info{commit="c",go_version="`) {
		t.Error("no disbursementd_build_info in /metrics")
	}
}

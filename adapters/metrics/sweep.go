package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/lender/disbursementd/ports"
)

// sweepMetrics count serve's sweeps: runs by outcome, what each found
// and what it could not do by kind (ports.FindingKinds, a fixed set), and
// the files in quarantine after the last run.
type sweepMetrics struct {
	runs        *prometheus.CounterVec
	findings    *prometheus.CounterVec
	failures    *prometheus.CounterVec
	quarantined prometheus.Gauge
}

func newSweepMetrics() sweepMetrics {
	m := sweepMetrics{
		runs: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_sweep_runs_total",
			Help: "Sweeps run by serve, by outcome: ok, or incomplete (something could not be done; see disbursementd_sweep_failures_total and the log)."},
			[]string{"outcome"}),
		findings: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_sweep_findings_total",
			Help: "What the sweep found and handled, by kind (orphan_file: moved to quarantine; quarantine_expired: deleted after uploads.quarantine_retention; purged_file: the file of a purged report, deleted; missing_file: reported only)."},
			[]string{"kind"}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{Name: "disbursementd_sweep_failures_total",
			Help: "Things the sweep could not do (a file it could not move or delete, a statement that failed), by the kind of work; each is logged, and the sweep went on."},
			[]string{"kind"}),
		quarantined: prometheus.NewGauge(prometheus.GaugeOpts{Name: "disbursementd_sweep_quarantined_files",
			Help: "Files in quarantine (no report names them) when the last sweep ended; each is deleted after uploads.quarantine_retention."}),
	}
	for _, o := range []string{"ok", "incomplete"} {
		m.runs.WithLabelValues(o)
	}
	for _, k := range ports.FindingKinds {
		m.findings.WithLabelValues(k)
		m.failures.WithLabelValues(k)
	}
	return m
}

func (m sweepMetrics) collectors() []prometheus.Collector {
	return []prometheus.Collector{m.runs, m.findings, m.failures, m.quarantined}
}

// ObserveSweep records one run of serve's sweep: its outcome, what it
// found and could not do, the files in quarantine, and the stored rows
// whose file it found missing (disbursementd_missing_files_total).
func (m *Metrics) ObserveSweep(rep ports.SweepReport) {
	m.missingFiles.Add(float64(rep.Counts[ports.FoundMissingFile]))
	outcome := "ok"
	if rep.FailureCount() > 0 {
		outcome = "incomplete"
	}
	m.sweep.runs.WithLabelValues(outcome).Inc()
	for _, k := range ports.FindingKinds {
		m.sweep.findings.WithLabelValues(k).Add(float64(rep.Counts[k]))
		m.sweep.failures.WithLabelValues(k).Add(float64(rep.Failed[k]))
	}
	if rep.Quarantined >= 0 {
		m.sweep.quarantined.Set(float64(rep.Quarantined))
	}
}

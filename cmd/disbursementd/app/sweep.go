package app

import (
	"context"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/ports"
)

// newSweep is the crash sweep on st and up, as serve and reconcile run
// it. Tombstones are kept as long as idempotency records.
func newSweep(cfg *config.Config, st ports.SweepStore, up Uploads, clock ports.Clock) (*ports.Sweep, error) {
	return ports.NewSweep(st, up, clock, ports.SweepOptions{Stale: cfg.HTTP.StaleBound(),
		TombstoneTTL: cfg.Idempotency.TTL, QuarantineRetention: cfg.Uploads.QuarantineRetention,
		Batch: cfg.Idempotency.SweepBatch})
}

// sweepObserver is what serve's sweep reports each run to: the metrics
// (what it found, the missing files among it, what it could not do).
type sweepObserver interface {
	ObserveSweep(rep ports.SweepReport)
}

// startSweep runs the crash sweep (contract §7, §10) in the background:
// once at start, then every uploads.sweep_interval, until Close; with an
// interval of 0 it never runs (reconcile --apply does it by hand). Each
// run checks the files of the rows stored since (each row once, however
// late its commit landed); a missing one is logged and counted. What a
// run could not do is logged, one line each, and counted; the next run
// tries again.
func (m *Main) startSweep(ctx context.Context, r *ports.Sweep, obs sweepObserver) {
	every := m.Config.Uploads.SweepInterval
	if every <= 0 {
		m.Log.Warn("the sweep is off (uploads.sweep_interval: 0): nothing left by a crash is cleared, and expired idempotency records are not deleted, until reconcile --apply runs")
		return
	}
	m.goBackground(func() {
		for {
			rep, err := r.Run(ctx, true, ports.NewRows)
			m.pruneThrottle(ctx)
			if ctx.Err() != nil {
				return
			}
			// What a run found is reported however it ended.
			obs.ObserveSweep(rep)
			m.logSweep(rep, err)
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	})
}

func (m *Main) logSweep(rep ports.SweepReport, err error) {
	for _, f := range rep.Failures {
		m.Log.Error("the sweep could not do this; it tries again at the next run", "kind", f.Kind, "file", f.Name, "error", f.Err.Error())
	}
	if err != nil {
		m.Log.Error("sweep incomplete", "failures", rep.FailureCount(), "error", err.Error())
	}
	attrs := []any{}
	for _, kind := range ports.FindingKinds {
		if n := rep.Counts[kind]; n > 0 {
			attrs = append(attrs, kind, n)
		}
	}
	if len(attrs) == 0 {
		m.Log.Debug("sweep: nothing to do", "quarantined", rep.Quarantined)
		return
	}
	attrs = append(attrs, "quarantined", rep.Quarantined)
	m.Log.Info("sweep cleared what a crash left", attrs...)
	for _, f := range rep.Findings {
		switch f.Kind {
		case ports.FoundMissingFile:
			m.Log.Error("a stored report's file is missing", "file", f.Name, "reason", f.Reason)
		case ports.FoundOrphanFile:
			m.Log.Warn("a file no stored report names was moved to quarantine", "file", f.Name, "reason", f.Reason)
		case ports.FoundExpiredFile:
			m.Log.Info("a quarantined file was deleted after its retention", "file", f.Name, "reason", f.Reason)
		case ports.FoundPurgedFile:
			m.Log.Info("the file of a report the retention purge deleted was deleted", "file", f.Name, "reason", f.Reason)
		}
	}
}

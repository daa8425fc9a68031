package app

import (
	"context"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/ports"
)

// newSweep is the crash sweep on st and up, as serve and reconcile run
// it. Tombstones are kept as long as idempotency records.
func newSweep(cfg *config.Config, st ports.SweepStore, up Uploads, clock ports.Clock) (*ports.Sweep, error) {
	return ports.NewSweep(st, up, clock, ports.SweepOptions{Stale: cfg.HTTP.StaleBound(),
		TombstoneTTL: cfg.Idempotency.TTL, Batch: cfg.Idempotency.SweepBatch})
}

// startSweep runs the crash sweep (contract §7) in the background: once
// at start, then every uploads.sweep_interval, until Close. Each run
// checks the files of the rows stored since (each row once, however late
// its commit landed); a missing one is logged and counted in missing.
func (m *Main) startSweep(ctx context.Context, r *ports.Sweep, missing prometheus.Counter) {
	every := m.Config.Uploads.SweepInterval
	m.goBackground(func() {
		for {
			rep, err := r.Run(ctx, true, ports.NewRows)
			m.pruneThrottle(ctx)
			if ctx.Err() != nil {
				return
			}
			if err != nil {
				m.Log.Error("sweep failed; it runs again at the next interval", "error", err.Error())
			}
			// What a failed run found before it stopped is reported too.
			missing.Add(float64(rep.Counts[ports.FoundMissingFile]))
			m.logSweep(rep)
			if every <= 0 {
				return
			}
			select {
			case <-ctx.Done():
				return
			case <-time.After(every):
			}
		}
	})
}

func (m *Main) logSweep(rep ports.SweepReport) {
	attrs := []any{}
	for _, kind := range ports.FindingKinds {
		if n := rep.Counts[kind]; n > 0 {
			attrs = append(attrs, kind, n)
		}
	}
	if len(attrs) == 0 {
		m.Log.Debug("sweep: nothing to remove")
		return
	}
	m.Log.Info("sweep removed what a crash left", attrs...)
	for _, f := range rep.Findings {
		if f.Kind == ports.FoundMissingFile {
			m.Log.Error("a stored report's file is missing", "file", f.Name, "reason", f.Reason)
		}
	}
}

package app

import (
	"context"
	"time"

	"github.com/lender/disbursementd/ports"
)

// startSweep runs the crash sweep (contract §7) in the background: once
// at start, then every uploads.sweep_interval, until Close. Each run after
// the first checks for missing files only the rows received since the run
// before (the first: since twice the interval, or an hour, before start).
func (m *Main) startSweep(ctx context.Context, r *ports.Reconciler) {
	every := m.Config.Uploads.SweepInterval
	m.goBackground(func() {
		since := m.Clock.Now().Add(-max(2*every, time.Hour))
		for {
			started := m.Clock.Now()
			rep, err := r.Run(ctx, true, since)
			m.pruneThrottle(ctx)
			switch {
			case ctx.Err() != nil:
				return
			case err != nil:
				m.Log.Error("sweep failed; it runs again at the next interval", "error", err.Error())
			default:
				since = started.Add(-r.Stale)
				m.logSweep(rep)
			}
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

func (m *Main) logSweep(rep ports.ReconcileReport) {
	attrs := []any{}
	for kind, n := range rep.Counts {
		if n > 0 {
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

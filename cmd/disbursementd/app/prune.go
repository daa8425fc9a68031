package app

import "context"

// throttlePruner is the database throttle's part the sweep uses.
type throttlePruner interface {
	Prune(ctx context.Context, limit int) (int64, error)
}

// maxPruneRounds bounds the batches one sweep deletes; what is left waits
// for the next sweep.
const maxPruneRounds = 100

// pruneThrottle deletes the database throttle's rows whose window has
// ended, idempotency.sweep_batch of each table per statement, at every
// sweep (contract §7, "Failed logins cost the store little": Takes do not
// prune). The in-memory throttle bounds itself and has nothing to prune.
func (m *Main) pruneThrottle(ctx context.Context) {
	if m.pruner == nil {
		return
	}
	var total int64
	for range maxPruneRounds {
		n, err := m.pruner.Prune(ctx, m.Config.Idempotency.SweepBatch)
		total += n
		if err != nil {
			if ctx.Err() == nil {
				m.Log.Warn("throttle prune failed; it runs again at the next sweep", "error", err.Error())
			}
			return
		}
		if n == 0 {
			break
		}
	}
	if total > 0 {
		m.Log.Debug("sweep: expired login throttle rows deleted", "rows", total)
	}
}

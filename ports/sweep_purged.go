package ports

import (
	"context"
	"fmt"
	"time"
)

// The files of purged reports. The retention purge deletes a report's row,
// then its file; the store records, in the row's transaction, that the
// purge took the file (SweepStore.PurgedFiles). A purge stopped between
// the two (killed, or its upload store failing) leaves files that no row
// names; unlike a file whose row a restored backup may bring back, such a
// file has nothing to wait for, so the sweep deletes it, published or in
// quarantine, instead of keeping it for QuarantineRetention.

// purgedOf returns which of objs were files of purged reports; false when
// the store could not say (a failure is recorded, and nothing is done
// with them in this run).
func (r *Sweep) purgedOf(ctx context.Context, rep *SweepReport, objs []StoredObject) (map[string]bool, bool) {
	if len(objs) == 0 {
		return nil, true
	}
	names := make([]string, len(objs))
	for i, o := range objs {
		names[i] = o.Name
	}
	purged, err := r.store.PurgedFiles(ctx, names)
	if err != nil {
		rep.fail(FoundPurgedFile, "", fmt.Errorf("look up %d file names among the purged: %w", len(names), err))
		return nil, false
	}
	return purged, true
}

// deletePurged deletes, with apply, the file of a purged report, in its
// place or in quarantine, and reports whether it did.
func (r *Sweep) deletePurged(ctx context.Context, rep *SweepReport, o StoredObject, quarantined, apply bool) bool {
	where, remove := "", r.uploads.Remove
	if quarantined {
		where, remove = "in quarantine since "+o.ModTime.UTC().Format(time.RFC3339)+"; ", r.uploads.RemoveQuarantined
	}
	if apply {
		if err := remove(ctx, o.Name); err != nil {
			rep.fail(FoundPurgedFile, o.Name, err)
			return false
		}
	}
	rep.add(FoundPurgedFile, o.Name, where+"its report was deleted by the retention purge (reports purge), which stopped before its file")
	return apply
}

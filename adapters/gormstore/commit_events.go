package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// A batch writes its reports' report.received events last, just before
// its COMMIT, each dated by eventTime then: after whatever the batch's
// rows, keys and reservations waited for (docs/decisions.md, "An event is
// dated near its commit").

// eventTime dates q's report.received event written at now: its given
// time (domain.StagedReport.EventTime), moved on by however much longer
// than the store's EventSlack q waited since StoreReport was called
// (domain.LateEventTime).
func (s *Store) eventTime(q *request, now time.Time) time.Time {
	return domain.LateEventTime(q.r.EventTime(), q.enter, now, s.eventSlack)
}

// insertEvents inserts, a statement per report, the event of each
// request of reqs that out says was stored; on an error it returns the
// request's index.
func (s *Store) insertEvents(ctx context.Context, b *batchTx, reqs []*request, out []result) (int, error) {
	now := s.clock.Now()
	for i, q := range reqs {
		if out[i].kind != stored {
			continue
		}
		var last any = q.r.PartnerUser // SQLite: the statement asks (statements.go)
		if s.driver == MySQL {
			last = dispatched(b.quiet, q.r.PartnerUser)
		}
		if _, err := b.exec(ctx, b.event, q.r.PartnerUser, out[i].id, s.eventTime(q, now).UTC(), last); err != nil {
			return i, fmt.Errorf("insert the report's event: %w", err)
		}
	}
	return -1, nil
}

// insertRowEvents inserts the events of reqs, all stored with the ids in
// out, a chunk's (rowChunks) in one multi-row statement.
func (s *Store) insertRowEvents(ctx context.Context, tx *sql.Tx, reqs []*request, out []result, quiet []string) error {
	now := s.clock.Now()
	var args []any
	for done := 0; done < len(reqs); {
		n := chunkSize(len(reqs) - done)
		args = args[:0]
		for i := done; i < done+n; i++ {
			q := reqs[i]
			args = append(args, q.r.PartnerUser, out[i].id, s.eventTime(q, now).UTC(), dispatched(quiet, q.r.PartnerUser))
		}
		if _, err := s.execRows(ctx, tx, s.sql.event, n, args); err != nil {
			return fmt.Errorf("insert the reports' events: %w", err)
		}
		done += n
	}
	return nil
}

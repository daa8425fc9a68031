package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// errDeliveryNotMade is a dispatch that read back fewer deliveries than it
// made: the transaction is rolled back and its events stay undispatched.
var errDeliveryNotMade = errors.New("a delivery the dispatch made is not there")

// pairsMade reads back, in the dispatch's transaction, the deliveries of
// the events ids and fails unless every (event, endpoint) of pairs is
// among them: an event is marked dispatched only with each of its
// deliveries in place, whatever an INSERT … ON DUPLICATE KEY (or ON
// CONFLICT) racing another replica's did. Fail closed: one soak under
// load once left an event dispatched with no delivery (docs/performance.md),
// and an event marked dispatched is never looked at again.
func pairsMade(ctx context.Context, tx *sql.Tx, pairs [][2]int64, ids []int64) error {
	if len(pairs) == 0 {
		return nil
	}
	made := make(map[[2]int64]bool, len(pairs))
	got, err := queryTx(ctx, tx, "SELECT event_id, endpoint_id FROM "+deliveriesTable+" WHERE event_id IN "+inList(len(ids)),
		int64Args(ids), func(rows *sql.Rows) ([2]int64, error) {
			var p [2]int64
			err := rows.Scan(&p[0], &p[1])
			return p, err
		})
	if err != nil {
		return fmt.Errorf("read the deliveries back: %w", err)
	}
	for _, p := range got {
		made[p] = true
	}
	for _, p := range pairs {
		if !made[p] {
			return fmt.Errorf("event %d, endpoint %d: %w", p[0], p[1], errDeliveryNotMade)
		}
	}
	return nil
}

package storetest

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// RunCertificationRetries stores, round after round, one key on every
// replica at once beside distinct reports, with the replicas each on its
// own Galera node: the same key written on two nodes at once makes the
// later COMMIT fail certification (1213). Each round has one winner, the
// others get ErrConflict naming the winner's record, no distinct report
// fails, and the store did run batches again (so the rounds did meet
// certification failures, and they were retried, not answered as
// failures).
func RunCertificationRetries(t *testing.T, r *Replicas, rounds int) {
	ctx := context.Background()
	now := time.Now().UTC().Truncate(time.Millisecond)
	n := len(r.all)
	for round := range rounds {
		type answer struct {
			nonce    string
			id       int64
			existing domain.IdempotencyRecord
			err      error
		}
		answers := make([]answer, 2*n)
		storeAll(2*n, func(i int) error {
			st := r.all[i%n]
			key, credit := fmt.Sprintf("cert-%d", round), fmt.Sprintf("CR-CERT-%d", round)
			if i >= n {
				key, credit = fmt.Sprintf("cert-%d-own-%d", round, i), fmt.Sprintf("CR-CERT-%d-OWN-%d", round, i)
			}
			rec := record("acme", key, now)
			a := answer{nonce: rec.Nonce}
			a.id, a.existing, a.err = st.StoreReport(ctx, staged(t, "acme", credit, now), rec)
			answers[i] = a
			return a.err
		})
		var winner *answer
		for i := range n {
			if answers[i].err == nil {
				if winner != nil {
					t.Fatalf("round %d: two winners", round)
				}
				winner = &answers[i]
			}
		}
		if winner == nil {
			t.Fatalf("round %d: no winner: %v", round, answers[0].err)
		}
		for i, a := range answers {
			switch {
			case i >= n && a.err != nil:
				t.Errorf("round %d: a distinct report beside the race failed: %v", round, a.err)
			case i < n && a.err != nil && (!errors.Is(a.err, domain.ErrConflict) || a.existing.Nonce != winner.nonce):
				t.Errorf("round %d: loser got %+v, %v; want ErrConflict naming the winner", round, a.existing, a.err)
			}
		}
	}
	if r.Conflicts() == 0 {
		t.Fatalf("%d rounds of one key on %d nodes at once met no certification failure: the test proves nothing", rounds, n)
	}
	t.Logf("%d batches run again after a certification failure in %d rounds", r.Conflicts(), rounds)
}

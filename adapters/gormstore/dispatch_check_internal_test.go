package gormstore

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

// TestDispatchReadsItsDeliveriesBack: the dispatch's read-back fails when
// an (event, endpoint) it made is not in the table, another endpoint's
// delivery of the event or the pair reversed included, and passes when
// every pair is there (others beside them change nothing).
func TestDispatchReadsItsDeliveriesBack(t *testing.T) {
	t.Parallel()
	db, _, err := openSQLiteDB(SQLiteDSN(filepath.Join(t.TempDir(), "check.db"), 0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, "CREATE TABLE "+deliveriesTable+" (event_id INTEGER, endpoint_id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	if _, err := db.ExecContext(ctx, "INSERT INTO "+deliveriesTable+" VALUES (1, 10), (1, 11), (2, 10), (3, 12)"); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name  string
		pairs [][2]int64
		ids   []int64
		ok    bool
	}{
		{"every pair made", [][2]int64{{1, 10}, {1, 11}, {2, 10}}, []int64{1, 2}, true},
		{"an event without endpoints", nil, []int64{4}, true},
		{"one endpoint's delivery missing", [][2]int64{{2, 10}, {2, 11}}, []int64{2}, false},
		{"an event's only delivery missing", [][2]int64{{4, 10}}, []int64{4}, false},
		{"the pair reversed is not the pair", [][2]int64{{10, 2}}, []int64{10}, false},
	} {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		err = pairsMade(ctx, tx, c.pairs, c.ids)
		_ = tx.Rollback()
		if c.ok && err != nil || !c.ok && !errors.Is(err, errDeliveryNotMade) {
			t.Errorf("%s: pairsMade = %v, want ok %v", c.name, err, c.ok)
		}
	}
}

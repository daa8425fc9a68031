package gormstore_test

import (
	"context"
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

// TestMigrationRecountsEndpoints: a database of migration 9 whose
// endpoint counts drifted (two deletions of one endpoint at once lowered
// acme's twice; bravo's row is missing) is upgraded on SQLite and
// MariaDB; migration 10 sets each partner's count to its endpoints, so
// a report of acme's is not written dispatched (listeners.go).
func TestMigrationRecountsEndpoints(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	onReleasedBefore(t, 10, func(t *testing.T, r released) {
		for _, user := range []string{"acme", "acme", "bravo"} {
			if err := r.old.CreateEndpoint(ctx, storetest.NewEndpoint(user), 5); err != nil {
				t.Fatal(err)
			}
		}
		_ = r.old.Close()
		for _, q := range []string{"UPDATE webhook_endpoint_counts SET endpoints = 0 WHERE partner_user = 'acme'",
			"DELETE FROM webhook_endpoint_counts WHERE partner_user = 'bravo'"} {
			if _, err := r.db.ExecContext(ctx, q); err != nil {
				t.Fatal(err)
			}
		}
		st := openMigrated(t, r.driver, r.dsn, nil, 10)
		for user, want := range map[string]int{"acme": 2, "bravo": 1} {
			var n int
			if err := r.db.QueryRowContext(ctx, "SELECT endpoints FROM webhook_endpoint_counts WHERE partner_user = ?", user).Scan(&n); err != nil || n != want {
				t.Errorf("%s's count after migration 10 = %d, %v; want %d", user, n, err, want)
			}
		}
		h := storetest.GormOutbox(t, st, r.driver, r.dsn)
		now := storetest.OutboxNow()
		storetest.StoreOutboxReport(t, h, "acme", "CR-RECOUNT", now)
		if n, err := h.Deliveries.Dispatch(ctx, now, 100); err != nil || n != 1 {
			t.Fatalf("Dispatch = %d, %v; want acme's event, for its 2 endpoints", n, err)
		}
	})
}

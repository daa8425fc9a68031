package storetest

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/ports"
)

// RunThrottleCap: the database throttle's key rows are capped per kind
// (throttle.max_entries, as the memory throttle's LRU bound): after 200
// new client addresses with a bound of 20, at most 20 + 20/8 address keys
// (and only their attempts) remain, and the flood of addresses has not
// evicted a user name's budget.
func RunThrottleCap(t *testing.T, driver, dsn string, st *gormstore.Store) {
	ctx := context.Background()
	const bound = 20
	_, th := MustThrottle(t, st, driver, dsn, gormstore.ThrottleOptions{Conns: 2, MaxKeys: bound})
	take := func(key ports.ThrottleKey, limit int) bool {
		t.Helper()
		r, err := th.Take(ctx, key, limit, 15*time.Minute, th.Now())
		if err != nil {
			t.Fatalf("Take(%v): %v", key, err)
		}
		return r.OK
	}
	if !take(userKey("victim"), 1) {
		t.Fatal("the victim's first attempt was refused")
	}
	for i := range 200 {
		if !take(addrKey(fmt.Sprintf("10.0.%d.%d", i/256, i%256)), 30) {
			t.Fatalf("address %d refused its first attempt", i)
		}
	}
	db := mustDB(t, driver, dsn)
	var keys, attempts int64
	if err := db.Raw("SELECT COUNT(*) FROM login_throttle_keys WHERE key_hash LIKE 'A%'").Scan(&keys).Error; err != nil {
		t.Fatal(err)
	}
	if err := db.Raw("SELECT COUNT(*) FROM login_attempts WHERE key_hash LIKE 'A%'").Scan(&attempts).Error; err != nil {
		t.Fatal(err)
	}
	if keys > bound+bound/8 || attempts > keys {
		t.Fatalf("%d address keys with %d attempts after 200 addresses, want at most %d keys and no attempt without its key", keys, attempts, bound+bound/8)
	}
	if take(userKey("victim"), 1) {
		t.Fatal("the flood of addresses evicted the victim's budget")
	}
}

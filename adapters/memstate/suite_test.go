package memstate_test

import (
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/test/storetest"
)

// TestLoginThrottleMemory runs the one login-throttle suite on the
// memory throttle, as the database throttles run it beside gormstore.
func TestLoginThrottleMemory(t *testing.T) {
	storetest.RunLoginThrottle(t, func(tb testing.TB) storetest.ThrottleSubject {
		th, err := memstate.NewThrottle(1000)
		if err != nil {
			tb.Fatal(err)
		}
		// Its time is the now its callers pass, which Pass moves on.
		now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
		return storetest.ThrottleSubject{LoginThrottle: th, Now: func() time.Time { return now },
			Pass: func(d time.Duration) { now = now.Add(d) }}
	})
}

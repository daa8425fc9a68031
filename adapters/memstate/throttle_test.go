package memstate_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/ports"
)

func user(name string) ports.ThrottleKey {
	return ports.ThrottleKey{Kind: ports.ThrottleUser, Value: name}
}

// TestFloodOfOneKindKeepsTheOthers: a user's spent budget survives any
// number of address keys (a botnet, an IPv6 block): each kind of key
// evicts only its own kind.
func TestFloodOfOneKindKeepsTheOthers(t *testing.T) {
	ctx := context.Background()
	th, err := memstate.NewThrottle(100)
	if err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	for range 3 {
		if r, _ := th.Take(ctx, user("acme"), 3, time.Hour, now); !r.OK {
			t.Fatal("budget refused early")
		}
	}
	for i := range 10_000 {
		if r, _ := th.Take(ctx, ports.ThrottleKey{Kind: ports.ThrottleAddr, Value: fmt.Sprintf("10.%d.%d.1", i/256, i%256)}, 3, time.Hour, now); !r.OK {
			t.Fatalf("address %d refused", i)
		}
	}
	if r, _ := th.Take(ctx, user("acme"), 3, time.Hour, now); r.OK {
		t.Fatal("10,000 addresses evicted the spent budget of user acme")
	}
	if n := th.Len(); n != 101 {
		t.Fatalf("%d keys held; want 100 addresses and 1 user", n)
	}
	// Within a kind, the least recently used key still goes.
	for i := range 100 {
		th.Take(ctx, user(fmt.Sprintf("u%d", i)), 3, time.Hour, now)
	}
	if r, _ := th.Take(ctx, user("acme"), 3, time.Hour, now); !r.OK {
		t.Fatal("the user cache keeps more than its 100 keys")
	}
}

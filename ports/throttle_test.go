package ports_test

import (
	"testing"
	"time"

	"github.com/lender/disbursementd/ports"
)

func TestThrottle(t *testing.T) {
	th := &ports.Throttle{UserLimit: 3, UserWindow: time.Minute, AddrLimit: 5, AddrWindow: 10 * time.Second}
	now := time.Unix(1_800_000_000, 0)
	for i := 0; i < 3; i++ {
		if ok, _ := th.Allow("acme", "10.0.0.1", now); !ok {
			t.Fatalf("attempt %d refused", i)
		}
		th.Fail("acme", "10.0.0.1", now.Add(time.Duration(i)*time.Second))
	}
	ok, wait := th.Allow("acme", "10.0.0.9", now.Add(3*time.Second))
	if ok || wait != 57*time.Second {
		t.Fatalf("4th attempt for the user: ok=%v retry after %s, want refused for 57s", ok, wait)
	}
	// Another user from the first address is fine until the address limit.
	if ok, _ := th.Allow("other", "10.0.0.1", now.Add(3*time.Second)); !ok {
		t.Fatal("other user refused")
	}
	th.Fail("other", "10.0.0.1", now.Add(4*time.Second))
	th.Fail("other", "10.0.0.1", now.Add(5*time.Second))
	if ok, _ := th.Allow("third", "10.0.0.1", now.Add(6*time.Second)); ok {
		t.Fatal("address over its limit allowed")
	}
	// Windows end: no lock-out longer than the window.
	if ok, _ := th.Allow("acme", "10.0.0.1", now.Add(63*time.Second)); !ok {
		t.Fatal("still refused after the window")
	}
	var nilThrottle *ports.Throttle
	if ok, _ := nilThrottle.Allow("a", "b", now); !ok {
		t.Fatal("nil throttle refused")
	}
}

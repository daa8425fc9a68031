package gormstore

import (
	"crypto/sha256"
	"encoding/hex"
	"testing"

	"github.com/lender/disbursementd/ports"
)

// TestThrottleKeysStoredAsBefore: every kind of ports.ThrottleKinds has its
// stored kind, and a key is stored as every release stored it (the kind's
// letter, then the SHA-256 of "kind:value"), so replicas of the release
// before this one share the budgets during a rolling upgrade.
func TestThrottleKeysStoredAsBefore(t *testing.T) {
	t.Parallel()
	for _, k := range ports.ThrottleKinds {
		if _, ok := kindOf(k); !ok {
			t.Errorf("kind %s has no stored kind", k)
		}
	}
	for key, want := range map[ports.ThrottleKey]string{
		{Kind: ports.ThrottleUser, Value: "acme"}:      "U" + sum63("user:acme"),
		{Kind: ports.ThrottleAddr, Value: "192.0.2.1"}: "A" + sum63("addr:192.0.2.1"),
		{Kind: ports.ThrottleUser, Value: "addr:acme"}: "U" + sum63("user:addr:acme"),
	} {
		if got, err := throttleKey(key); err != nil || got != want {
			t.Errorf("throttleKey(%v) = %q, %v; want %q", key, got, err, want)
		}
	}
	if _, err := throttleKey(ports.ThrottleKey{Value: "acme"}); err == nil {
		t.Error("a key of no kind was given a stored form")
	}
}

func sum63(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])[:63]
}

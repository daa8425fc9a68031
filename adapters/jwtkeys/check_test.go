package jwtkeys

import (
	"context"
	"crypto/rsa"
	"strings"
	"testing"
)

// TestCheckSignsAndVerifies: the readiness check passes for working keys
// and fails when the signing key's token is not accepted by the set.
func TestCheckSignsAndVerifies(t *testing.T) {
	k := mustKeys(t, 2)
	if err := k.Check(context.Background()); err != nil {
		t.Fatalf("Check = %v", err)
	}
	// The set no longer holds the signer's kid (as if the key file were
	// replaced by one whose public half is not trusted).
	delete(k.keys.byKid, k.KeyID())
	k.keys.only = nil
	if err := k.Check(context.Background()); err == nil || !strings.Contains(err.Error(), "refuse") {
		t.Fatalf("Check = %v; want the refusal named", err)
	}
	verifyOnly, err := New(nil, []*rsa.PublicKey{&testKeys()[1].PublicKey})
	if err != nil {
		t.Fatal(err)
	}
	if err := verifyOnly.Check(context.Background()); err != nil {
		t.Fatalf("verify-only Check = %v", err)
	}
}

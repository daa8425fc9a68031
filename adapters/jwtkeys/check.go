package jwtkeys

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Check is the readiness check of the keys: the signing key signs a probe
// token and the trusted set verifies it, as a partner's token would be
// issued and read. A verify-only instance checks that it trusts a key.
func (k *Keys) Check(context.Context) error {
	if len(k.keys.byKid) == 0 {
		return errors.New("no trusted keys")
	}
	if k.signer == nil {
		return nil
	}
	now := k.clock.Now().UTC().Truncate(time.Second)
	tok, err := k.Issue(domain.Claims{Issuer: "readiness", Subject: "readiness", Audience: []string{"readiness"},
		IssuedAt: now, NotBefore: now, Expiry: now.Add(time.Minute), ID: "readiness"})
	if err != nil {
		return fmt.Errorf("the signing key cannot sign: %w", err)
	}
	if _, err := k.Verify(tok); err != nil {
		return fmt.Errorf("the trusted keys refuse a token of the signing key: %w", err)
	}
	return nil
}

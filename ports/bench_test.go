package ports_test

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/memstate"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// BenchmarkAuthenticateCached: a reused token with the caches on (compare
// with jwtkeys' BenchmarkVerify, which every request pays without them).
func BenchmarkAuthenticateCached(b *testing.B) {
	users := fakes.NewUsers(domain.User{Name: "acme", Active: true})
	keys := fakes.NewKeys()
	tok, _ := keys.Issue(domain.DefaultTokenPolicy().NewClaims(domain.User{Name: "acme"}, time.Now(), "j"))
	tokens, _ := memstate.NewTokenCache(1000)
	statuses, _ := memstate.NewUserStatusCache(1000)
	auth := &ports.Auth{Verifier: keys, Policy: domain.DefaultTokenPolicy(), Users: users, Clock: sysclock.Clock{},
		Tokens: tokens, Statuses: statuses, Staleness: 30 * time.Second}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := auth.Authenticate(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
	}
}

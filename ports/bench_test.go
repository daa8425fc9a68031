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
	"github.com/lender/disbursementd/test/fixture"
)

// BenchmarkAuthenticateCached: a reused token with the caches on (compare
// with jwtkeys' BenchmarkVerify, which every request pays without them).
func BenchmarkAuthenticateCached(b *testing.B) {
	users := fakes.NewUsers(domain.User{Name: "acme", Active: true})
	keys := fakes.NewKeys()
	tok, _ := keys.Issue(fixture.TokenPolicy().NewClaims(domain.User{Name: "acme"}, time.Now(), "j"))
	tokens, _ := memstate.NewTokenCache(1000)
	statuses, _ := memstate.NewUserStatusCache(1000)
	login := newLogin(b, users, &fakes.Hasher{}, keys, sysclock.Clock{})
	auth, err := ports.NewAuth(login, keys, fixture.TokenPolicy(), sysclock.Clock{},
		ports.AuthOptions{Users: users, Tokens: tokens, Statuses: statuses, Staleness: 30 * time.Second})
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := auth.Authenticate(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
	}
}

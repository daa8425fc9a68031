package ports_test

import (
	"context"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// BenchmarkAuthenticateCached: a reused token with the caches on (compare
// with jwtkeys' BenchmarkVerify, which every request pays without them).
func BenchmarkAuthenticateCached(b *testing.B) {
	users := &memUsers{users: map[string]domain.User{"acme": {Name: "acme", Active: true}}}
	v := &countingVerifier{}
	v.last = domain.DefaultTokenPolicy().NewClaims(users.users["acme"], time.Now(), "j")
	auth := &ports.Auth{Verifier: v, Policy: domain.DefaultTokenPolicy(), Users: users, Clock: ports.SystemClock{},
		Tokens: &ports.TokenCache{}, Statuses: &ports.UserStatusCache{Staleness: 30 * time.Second}}
	tok := "tok:" + string(make([]byte, 800)) // a real token's length
	b.ReportAllocs()
	for b.Loop() {
		if _, err := auth.Authenticate(context.Background(), tok); err != nil {
			b.Fatal(err)
		}
	}
}

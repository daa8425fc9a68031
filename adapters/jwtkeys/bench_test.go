package jwtkeys

import (
	"path/filepath"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// BenchmarkVerify: one RS256 verification with claim validation, the cost
// a request pays without the token cache.
func BenchmarkVerify(b *testing.B) {
	priv, err := GenerateKeyFiles(filepath.Join(b.TempDir(), "k.pem"), "")
	if err != nil {
		b.Fatal(err)
	}
	k, _ := New(priv, nil, sysclock.Clock{})
	tok, _ := k.Issue(fixture.TokenPolicy().NewClaims(domain.User{Name: "acme", NIT: "900123456"}, time.Now(), "j"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := k.Verify(tok); err != nil {
			b.Fatal(err)
		}
	}
}

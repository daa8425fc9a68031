package domain_test

import (
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestBoundWords: each bound's words are built from its constant, and
// read as the partner guide, the README and the operator guide quote
// them.
func TestBoundWords(t *testing.T) {
	for name, tt := range map[string]struct {
		got  domain.Bound
		want domain.Bound
	}{
		"credit number":   {domain.CreditNumberBound, domain.Bound{Es: "de 1 a 30 caracteres entre A-Z, a-z, 0-9 y guion", En: "1 to 30 of A-Z, a-z, 0-9 and -"}},
		"idempotency key": {domain.IdempotencyKeyBound, domain.Bound{Es: "de 1 a 255 caracteres ASCII imprimibles", En: "1 to 255 printable ASCII characters"}},
		"user name":       {domain.UserNameBound, domain.Bound{En: "1 to 64 printable ASCII characters without spaces"}},
		"page limit":      {domain.PageLimitBound, domain.Bound{Es: "un entero de 1 a 500", En: "1 to 500"}},
		"password":        {domain.PasswordBound, domain.Bound{En: "12 to 72 bytes long"}},
		"token lifetime":  {domain.TokenLifetimeBound, domain.Bound{En: "more than 0 and at most 24h"}},
		"key lifetime":    {domain.KeyTTLBound, domain.Bound{En: "at least 24h (the contract keeps keys that long)"}},
	} {
		if tt.got != tt.want {
			t.Errorf("%s: %+v, want %+v", name, tt.got, tt.want)
		}
	}
}

// TestLengthBounds: each length rule accepts its bounds and refuses one
// past them.
func TestLengthBounds(t *testing.T) {
	for _, tt := range []struct {
		name  string
		valid func(string) bool
		min   int
		max   int
		char  string
	}{
		{"credit number", domain.ValidCreditNumber, 1, domain.CreditNumberMaxLen, "A"},
		{"idempotency key", domain.ValidIdempotencyKey, 1, domain.IdempotencyKeyMaxLen, "~"},
		{"user name", func(s string) bool { return domain.ValidateUserName(s) == nil }, 1, domain.MaxUserNameBytes, "u"},
		{"new password", func(s string) bool { return domain.CheckNewPassword(s) == nil }, domain.MinPasswordLength, domain.MaxPasswordLength, "p"},
	} {
		for n, ok := range map[int]bool{tt.min - 1: false, tt.min: true, tt.max: true, tt.max + 1: false} {
			if got := tt.valid(strings.Repeat(tt.char, n)); got != ok {
				t.Errorf("%s of %d: valid %v, want %v", tt.name, n, got, ok)
			}
		}
	}
	err := domain.CheckNewPassword("short")
	if !domain.IsKind(err, domain.ErrInvalidInput) || err.Error() != "the password must be 12 to 72 bytes long" {
		t.Errorf("a short password: %v", err)
	}
	if err := domain.ValidateUserName("a b"); err == nil || err.Error() != "the user name must be "+domain.UserNameBound.En {
		t.Errorf("a user name with a space: %v", err)
	}
}

// TestTokenLifetimeBound: a token lifetime above 0 and at most 24 h, and
// a policy holds one; keys are kept at least 24 h.
func TestTokenLifetimeBound(t *testing.T) {
	for d, ok := range map[time.Duration]bool{
		-time.Second: false, 0: false, time.Nanosecond: true, time.Hour: true,
		domain.MaxTokenLifetime: true, domain.MaxTokenLifetime + time.Nanosecond: false, 48 * time.Hour: false,
	} {
		if err := domain.CheckTokenLifetime(d); (err == nil) != ok {
			t.Errorf("CheckTokenLifetime(%s) = %v, want ok %v", d, err, ok)
		}
	}
	if err := domain.CheckTokenLifetime(48 * time.Hour); err == nil || err.Error() != "token lifetime 48h0m0s, want more than 0 and at most 24h" {
		t.Errorf("48h: %v", err)
	}
	for d, ok := range map[time.Duration]bool{0: false, domain.MinKeyTTL - time.Nanosecond: false, domain.MinKeyTTL: true, 30 * 24 * time.Hour: true} {
		if err := domain.CheckKeyTTL(d); (err == nil) != ok {
			t.Errorf("CheckKeyTTL(%s) = %v, want ok %v", d, err, ok)
		}
	}
	p := domain.TokenPolicy{Issuer: "disbursementd", Audience: "partner-api", Lifetime: 24 * time.Hour}
	if err := p.Validate(); err != nil {
		t.Errorf("the contract's policy: %v", err)
	}
	for name, q := range map[string]domain.TokenPolicy{
		"no issuer":   {Audience: "a", Lifetime: time.Hour},
		"no audience": {Issuer: "i", Lifetime: time.Hour},
		"no lifetime": {Issuer: "i", Audience: "a"},
		"25h":         {Issuer: "i", Audience: "a", Lifetime: 25 * time.Hour},
	} {
		if q.Validate() == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

// TestLoginFits: an attempt carries a user name and a password, each
// within its bound.
func TestLoginFits(t *testing.T) {
	long := func(n int) string { return strings.Repeat("x", n) }
	for _, tt := range []struct {
		user, password string
		ok             bool
	}{
		{"acme", "secret", true},
		{long(domain.MaxUserNameBytes), long(domain.MaxPasswordBytes), true},
		{"", "secret", false},
		{"acme", "", false},
		{long(domain.MaxUserNameBytes + 1), "secret", false},
		{"acme", long(domain.MaxPasswordBytes + 1), false},
	} {
		if got := domain.LoginFits(tt.user, tt.password); got != tt.ok {
			t.Errorf("LoginFits(%d bytes, %d bytes) = %v", len(tt.user), len(tt.password), got)
		}
	}
}

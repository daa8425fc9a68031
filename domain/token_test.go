package domain

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestTokenPolicyCheck(t *testing.T) {
	// The contract's defaults (auth.issuer, auth.audience, auth.token_ttl,
	// auth.leeway), which config owns; fixture.TokenPolicy is held to them.
	p := TokenPolicy{Issuer: "disbursementd", Audience: "partner-api", Lifetime: 24 * time.Hour, Leeway: 60 * time.Second}
	now := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC)
	good := p.NewClaims(User{Name: "acme", NIT: "900123456"}, now, "jti-1")
	if good.Expiry.Sub(good.IssuedAt) != 24*time.Hour || good.Audience[0] != "partner-api" || good.Issuer != "disbursementd" {
		t.Fatalf("NewClaims = %+v", good)
	}
	for _, tt := range []struct {
		name   string
		mutate func(*Claims)
		at     time.Time
		detail string
	}{
		{"valid", func(*Claims) {}, now, ""},
		{"valid at end within leeway", func(*Claims) {}, now.Add(24*time.Hour + 59*time.Second), ""},
		{"expired", func(*Claims) {}, now.Add(24*time.Hour + 61*time.Second), "expired"},
		{"no exp", func(c *Claims) { c.Expiry = time.Time{} }, now, "missing_claim"},
		{"no iat", func(c *Claims) { c.IssuedAt = time.Time{} }, now, "missing_claim"},
		{"no sub", func(c *Claims) { c.Subject = "" }, now, "missing_claim"},
		{"not yet valid", func(c *Claims) { c.NotBefore = now.Add(5 * time.Minute) }, now, "not_yet_valid"},
		{"nbf within leeway", func(c *Claims) { c.NotBefore = now.Add(30 * time.Second) }, now, ""},
		{"issued in the future", func(c *Claims) { c.IssuedAt = now.Add(time.Hour); c.NotBefore = time.Time{} }, now, "issued_at"},
		{"30-day lifetime", func(c *Claims) { c.Expiry = c.IssuedAt.Add(30 * 24 * time.Hour) }, now, "claims"},
		{"other issuer", func(c *Claims) { c.Issuer = "evil" }, now, "issuer"},
		{"other audience", func(c *Claims) { c.Audience = []string{"other"} }, now, "audience"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c := good
			c.Audience = append([]string(nil), good.Audience...)
			tt.mutate(&c)
			err := p.Check(c, tt.at)
			if tt.detail == "" {
				if err != nil {
					t.Fatalf("Check: %v", err)
				}
				return
			}
			var de *Error
			if !errors.As(err, &de) || !errors.Is(err, ErrInvalidToken) || de.Detail != tt.detail {
				t.Fatalf("Check = %v, want ErrInvalidToken with detail %s", err, tt.detail)
			}
			if de.Message != "Token inválido" {
				t.Errorf("message %q", de.Message)
			}
		})
	}
}

func TestUserRules(t *testing.T) {
	for name, ok := range map[string]bool{
		"acme": true, "acme.pay-01@x_y": true, "ACME": true, "a!b~c": true, strings.Repeat("a", 64): true,
		"": false, "a b": false, "acme ": false, "ñandu": false, "acmé": false, "a\tb": false, "a\x7f": false,
		strings.Repeat("a", 65): false,
	} {
		if err := ValidateUserName(name); (err == nil) != ok {
			t.Errorf("ValidateUserName(%q) = %v", name, err)
		}
	}
	if n, err := NormalizeUserNIT("900.123.456-8"); err != nil || n != "900123456-8" {
		t.Errorf("NormalizeUserNIT = %q, %v", n, err)
	}
	for nit, want := range map[string]string{"12ab": "9 or 10 digits", "900123456-1": "check digit does not match"} {
		if _, err := NormalizeUserNIT(nit); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("NormalizeUserNIT(%q) = %v, want an English refusal with %q", nit, err, want)
		}
	}
	if _, err := NormalizeUserNIT("900123456-1"); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("bad check digit accepted: %v", err)
	}
}

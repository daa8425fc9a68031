package config

import (
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestDomainRulesDecide: a setting that the domain has a rule for is
// refused by that rule, in its words, under the setting's key, and a
// value at the rule's bound loads.
func TestDomainRulesDecide(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tt := range []struct {
		env, val, key string
		rule          error
	}{
		{"DISB_AUTH_TOKEN_TTL", "25h", "auth.token_ttl", domain.CheckTokenLifetime(25 * time.Hour)},
		{"DISB_AUTH_TOKEN_TTL", "0s", "auth.token_ttl", domain.CheckTokenLifetime(0)},
		{"DISB_IDEMPOTENCY_TTL", "23h", "idempotency.ttl", domain.CheckKeyTTL(23 * time.Hour)},
		{"DISB_UPLOADS_MAX_FILE_BYTES", "0", "uploads.max_file_bytes", domain.CheckMaxFileBytes(0)},
		{"DISB_UPLOADS_MAX_IMAGE_PIXELS", "0", "uploads.max_image_pixels", domain.CheckMaxImagePixels(0)},
		{"DISB_UPLOADS_ALLOWED_TYPES", "pdf,GIF", "uploads.allowed_types", domain.CheckFileTypes([]string{"pdf", "gif"})},
	} {
		t.Run(tt.key+"="+tt.val, func(t *testing.T) {
			if tt.rule == nil {
				t.Fatal("the domain accepts the value: the case proves nothing")
			}
			t.Setenv(tt.env, tt.val)
			_, err := Load("")
			mustNameKey(t, err, tt.key)
			if !strings.HasSuffix(err.Error(), "): "+tt.rule.Error()) {
				t.Errorf("err = %v; want the domain's words %q", err, tt.rule)
			}
		})
	}
	for env, val := range map[string]string{"DISB_AUTH_TOKEN_TTL": "24h", "DISB_IDEMPOTENCY_TTL": "24h", "DISB_UPLOADS_MAX_IMAGE_PIXELS": "1"} {
		t.Run(env+"="+val, func(t *testing.T) {
			t.Setenv(env, val)
			if _, err := Load(""); err != nil {
				t.Errorf("at the bound: %v", err)
			}
		})
	}
}

// TestDocsStateTheDomainBounds: a setting's doc that states a domain
// bound states the domain's words, so the README and the example file
// cannot drift from the rule.
func TestDocsStateTheDomainBounds(t *testing.T) {
	for key, bound := range map[string]domain.Bound{
		"auth.token_ttl":  domain.TokenLifetimeBound,
		"idempotency.ttl": domain.KeyTTLBound,
	} {
		s, ok := lookup(key)
		if !ok {
			t.Fatalf("no key %s", key)
		}
		if !strings.HasSuffix(s.Doc, bound.En) {
			t.Errorf("%s doc %q does not end with the domain's bound %q", key, s.Doc, bound.En)
		}
	}
}

// TestTokenCacheZeroIsTheDefault: auth.token_cache_size 0 stands for the
// setting's default, written in its tag alone.
func TestTokenCacheZeroIsTheDefault(t *testing.T) {
	s, _ := lookup("auth.token_cache_size")
	def := Defaults().Auth.TokenCacheSize
	if def == 0 || s.Default == "0" {
		t.Fatalf("the default is %d (tag %q): 0 would stand for itself", def, s.Default)
	}
	if got := (AuthConfig{}).TokenCache(); got != def {
		t.Errorf("0 gives %d, want the default %d", got, def)
	}
	if got := (AuthConfig{TokenCacheSize: 7}).TokenCache(); got != 7 {
		t.Errorf("7 gives %d", got)
	}
}

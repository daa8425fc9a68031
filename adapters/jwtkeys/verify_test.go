package jwtkeys

import (
	"errors"
	"fmt"
	"strconv"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// wantRefused fails unless err is the 401 of an invalid token with detail.
func wantRefused(tb testing.TB, err error, detail string) {
	tb.Helper()
	var de *domain.Error
	if !errors.Is(err, domain.ErrInvalidToken) || !errors.As(err, &de) || de.Detail != detail {
		tb.Fatalf("Verify = %v; want an invalid token with detail %q", err, detail)
	}
}

func TestVerifyAcceptsCanonicalTokens(t *testing.T) {
	k := mustKeys(t, 2)
	ks := testKeys()
	kid, otherKid := k.KeyID(), kidOf(t, &ks[1].PublicKey)
	issued, err := k.Issue(fixture.TokenPolicy().NewClaims(domain.User{Name: "acme", NIT: "900123456-8"}, testNow, "j-1"))
	if err != nil {
		t.Fatal(err)
	}
	now := testNow.Unix()
	for _, tt := range []struct{ name, token string }{
		{"issued by Issue", issued},
		{"written by hand", forge(t, ks[0], rs256(kid), claimsJSON())},
		{"signed by the other trusted key", forge(t, ks[1], rs256(otherKid), claimsJSON())},
		{"exp with a fraction", forge(t, ks[0], rs256(kid), claimsJSON("exp", fmt.Sprint(now+3600)+".5"))},
		{"exp with an exponent", forge(t, ks[0], rs256(kid), claimsJSON("exp", strconv.FormatFloat(float64(now+3600), 'e', -1, 64)))},
		{"a string exp nested in another claim", forge(t, ks[0], rs256(kid), claimsJSON("ctx", `{"exp":"never"}`))},
		{"KID in capitals beside kid", forge(t, ks[0], `{"alg":"RS256","kid":"`+kid+`","KID":"bogus"}`, claimsJSON())},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := k.Verify(tt.token)
			if err != nil || c.Subject != "acme" || c.NIT != "900123456-8" {
				t.Fatalf("Verify = %+v, %v", c, err)
			}
		})
	}
	t.Run("no kid with one key trusted", func(t *testing.T) {
		if _, err := mustKeys(t, 1).Verify(forge(t, ks[0], `{"alg":"RS256","typ":"JWT"}`, claimsJSON())); err != nil {
			t.Fatal(err)
		}
	})
}

// TestVerifyLeavesClaimsToThePolicy: Verify passes every signed token in
// canonical form whatever its claims say, and returns them as written;
// domain.TokenPolicy.Check, the one claim rule, then refuses with the
// detail the 401 carries.
func TestVerifyLeavesClaimsToThePolicy(t *testing.T) {
	k := mustKeys(t, 2)
	own, kid := testKeys()[0], k.KeyID()
	now := testNow.Unix()
	hours := func(h int64) string { return fmt.Sprint(now + h*3600) }
	for _, tt := range []struct{ name, claims, detail string }{
		{"expired", claimsJSON("iat", hours(-25), "nbf", hours(-25), "exp", hours(-1)), "expired"},
		{"expired within the leeway", claimsJSON("exp", fmt.Sprint(now-30)), ""},
		{"not yet valid", claimsJSON("nbf", hours(1)), "not_yet_valid"},
		{"issued in the future", claimsJSON("iat", hours(1)), "issued_at"},
		{"other issuer", claimsJSON("iss", `"evil"`), "issuer"},
		{"other audience", claimsJSON("aud", `"other"`), "audience"},
		{"30-day lifetime", claimsJSON("exp", hours(30*24)), "claims"},
		{"no exp", claimsJSON("exp", ""), "missing_claim"},
		{"no iat", claimsJSON("iat", ""), "missing_claim"},
		{"no sub", claimsJSON("sub", ""), "missing_claim"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			c, err := k.Verify(forge(t, own, rs256(kid), tt.claims))
			if err != nil {
				t.Fatalf("Verify = %v; the claims are the policy's to judge", err)
			}
			err = fixture.TokenPolicy().Check(c, testNow)
			if tt.detail == "" {
				if err != nil {
					t.Fatal(err)
				}
				return
			}
			wantRefused(t, err, tt.detail)
		})
	}
}

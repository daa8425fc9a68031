package httpapi

import (
	"encoding/base64"
	"net/http/httptest"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// TestTokenCredentials: which pairs a token request's credentials give
// (contract §10): Basic decoded with its raw reading beside it, the same
// pair in Basic and the body, and different pairs refused.
func TestTokenCredentials(t *testing.T) {
	basic := func(s string) string { return "Basic " + base64.StdEncoding.EncodeToString([]byte(s)) }
	raw := func(u, p string) *ports.Credentials { return &ports.Credentials{User: u, Password: p} }
	for _, c := range []struct {
		name, auth string
		body       tokenParams
		want       ports.LoginAttempt
		kind       error
	}{
		{name: "encoded Basic", auth: basic("acme:a%2Bb"), want: ports.LoginAttempt{User: "acme", Password: "a+b", Raw: raw("acme", "a%2Bb")}},
		{name: "unencoded Basic", auth: basic("acme:a+b"), want: ports.LoginAttempt{User: "acme", Password: "a b", Raw: raw("acme", "a+b")}},
		{name: "a bare % reads only as sent", auth: basic("acme:100%"), want: ports.LoginAttempt{User: "acme", Password: "100%", Raw: raw("acme", "100%")}},
		{name: "the body alone", body: tokenParams{id: "acme", secret: "a+b"}, want: ports.LoginAttempt{User: "acme", Password: "a+b"}},
		{name: "the same pair in both", auth: basic("acme:a%2Bb"), body: tokenParams{id: "acme", secret: "a+b"},
			want: ports.LoginAttempt{User: "acme", Password: "a+b"}},
		{name: "the same pair, Basic unencoded", auth: basic("acme:a+b"), body: tokenParams{id: "acme", secret: "a+b"},
			want: ports.LoginAttempt{User: "acme", Password: "a+b"}},
		{name: "different pairs", auth: basic("acme:x"), body: tokenParams{id: "acme", secret: "y"}, kind: domain.ErrInvalidInput},
		{name: "Basic that is not base64", auth: "Basic !!!", kind: domain.ErrInvalidClient},
		// hey-api's auth callback renewing: the old token as Basic, the pair in the form.
		{name: "Basic that holds no pair, beside the body's pair", auth: basic("eyJhbGciOi.eyJzdWIi.c2ln"), body: tokenParams{id: "acme", secret: "a+b"},
			want: ports.LoginAttempt{User: "acme", Password: "a+b"}},
		{name: "Basic that holds no pair, beside half a pair", auth: basic("eyJhbGciOi.eyJzdWIi.c2ln"), body: tokenParams{id: "acme"}, kind: domain.ErrInvalidClient},
		{name: "no credentials", kind: domain.ErrInvalidClient},
	} {
		t.Run(c.name, func(t *testing.T) {
			r := httptest.NewRequest("POST", "/v1/token", nil)
			if c.auth != "" {
				r.Header.Set("Authorization", c.auth)
			}
			c.body.idName, c.body.secName = "client_id", "client_secret"
			got, err := credentials(r, c.body)
			if c.kind != nil {
				if !domain.IsKind(err, c.kind) {
					t.Fatalf("%v, want kind %v", err, c.kind)
				}
				return
			}
			if err != nil || got.User != c.want.User || got.Password != c.want.Password || (got.Raw == nil) != (c.want.Raw == nil) ||
				got.Raw != nil && *got.Raw != *c.want.Raw {
				t.Fatalf("%+v %v (raw %v), want %+v (raw %v)", got, err, got.Raw, c.want, c.want.Raw)
			}
		})
	}
}

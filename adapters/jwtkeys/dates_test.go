package jwtkeys

import (
	"fmt"
	"strconv"
	"strings"
	"testing"
)

// TestVerifyRefusesDatesThatAreNotNumbers: exp, iat and nbf are JSON
// numbers (RFC 7519 NumericDate); jwx alone also reads strings of digits
// and RFC 3339 dates.
func TestVerifyRefusesDatesThatAreNotNumbers(t *testing.T) {
	k := mustKeys(t, 2)
	own, kid := testKeys()[0], k.KeyID()
	now := testNow.Unix()
	exp := fmt.Sprint(now + 3600)
	for _, tt := range []struct{ name, claims string }{
		{"exp as a string", claimsJSON("exp", strconv.Quote(exp))},
		{"iat as a string", claimsJSON("iat", strconv.Quote(fmt.Sprint(now)))},
		{"nbf as a string", claimsJSON("nbf", strconv.Quote(fmt.Sprint(now)))},
		{"exp as an RFC 3339 string", claimsJSON("exp", strconv.Quote(testNow.Add(3600e9).Format("2006-01-02T15:04:05Z07:00")))},
		{"exp as a boolean", claimsJSON("exp", "true")},
		{"exp as null", claimsJSON("exp", "null")},
		{"exp as an object", claimsJSON("exp", `{"n":`+exp+`}`)},
		{"exp as an array", claimsJSON("exp", `[`+exp+`]`)},
		{"exp twice, the first a string", strings.Replace(claimsJSON(), "{", `{"exp":"99999999999",`, 1)},
		{"exp spelled with an escape, as a string", claimsJSON("exp", "", `\u0065xp`, strconv.Quote(exp))},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := k.Verify(forge(t, own, rs256(kid), tt.claims))
			wantRefused(t, err, "claims")
		})
	}
}

// TestCheckNumericDatesDecidesOnlyDateTypes: the check refuses a
// top-level exp, iat or nbf that is not a number, and leaves everything
// else, including claims it cannot read, to jwx.
func TestCheckNumericDatesDecidesOnlyDateTypes(t *testing.T) {
	for _, tt := range []struct {
		claims  string
		refused bool
	}{
		{`{"exp":1,"iat":0,"nbf":-1}`, false},
		{`{"exp":1.5e9}`, false},
		{`{"x":[{"exp":"1"}],"y":{"iat":"1"},"exp":1}`, false},
		{`{"EXP":"1","Iat":"1"}`, false}, // other claims to jwx, which matches names exactly
		{`[{"exp":"1"}]`, false},         // not an object: jwx refuses it
		{`{"exp":1,`, false},             // not JSON: jwx refuses it
		{`{"exp":"1"}`, true},
		{`{"iat":"1"}`, true},
		{`{"nbf":"1"}`, true},
		{`{"\u0065xp":"1"}`, true},
		{`{"exp":true}`, true},
		{`{"exp":null}`, true},
		{`{"exp":{}}`, true},
		{`{"exp":[1]}`, true},
		{`{"exp":1,"exp":"1"}`, true},
		{`{"x":{"a":[1,{"b":2}]},"exp":"1"}`, true},
	} {
		err := checkNumericDates([]byte(tt.claims))
		if refused := err != nil; refused != tt.refused {
			t.Errorf("checkNumericDates(%s) = %v; want refused: %v", tt.claims, err, tt.refused)
		}
	}
}

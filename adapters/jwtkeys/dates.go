package jwtkeys

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/lestrrat-go/jwx/v3/jwt"
)

// numericDates is jwx's token with one check in front of jwx's decoding
// of the claims: exp, iat and nbf must be JSON numbers (RFC 7519
// NumericDate). jwx v3 also reads a string there, of digits or, unless a
// process-wide switch is set, an RFC 3339 date. Passed to jwt.Parse with
// jwt.WithToken, it sees exactly the bytes jwx decodes, after the
// signature is verified; jwx decides everything else.
type numericDates struct{ jwt.Token }

// UnmarshalJSON refuses claims whose dates are not numbers, then lets
// jwx's token decode them.
func (t *numericDates) UnmarshalJSON(claims []byte) error {
	if err := checkNumericDates(claims); err != nil {
		return err
	}
	u, ok := t.Token.(json.Unmarshaler)
	if !ok {
		return fmt.Errorf("jwx token %T does not decode JSON", t.Token)
	}
	return u.UnmarshalJSON(claims)
}

// checkNumericDates refuses (detail claims) claims in which a top-level
// exp, iat or nbf member, any time it appears, is not a number. Names are
// compared as jwx compares them: exactly, after unescaping. Anything it
// cannot read it leaves to jwx, which then refuses it.
func checkNumericDates(claims []byte) error {
	// A cheap first pass: encoding/json gives a struct field every member
	// whose name matches it exactly or case-insensitively, each time it
	// appears, so the probes see every member jwx reads as a date (and
	// perhaps others, such as EXP). When all of those are numbers, so are
	// jwx's dates; otherwise the exact pass decides.
	var dates struct {
		Exp dateProbe `json:"exp"`
		Iat dateProbe `json:"iat"`
		Nbf dateProbe `json:"nbf"`
	}
	if json.Unmarshal(claims, &dates) != nil || !(dates.Exp.notNumber || dates.Iat.notNumber || dates.Nbf.notNumber) {
		return nil
	}
	return checkNumericDatesExactly(claims)
}

// checkNumericDatesExactly walks the top-level members of claims and
// refuses the first exp, iat or nbf that is not a number.
func checkNumericDatesExactly(claims []byte) error {
	dec := json.NewDecoder(bytes.NewReader(claims))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	var v dateProbe
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return nil
		}
		v.notNumber = false
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		switch name {
		case jwt.ExpirationKey, jwt.IssuedAtKey, jwt.NotBeforeKey:
			if v.notNumber {
				return refuse("claims", fmt.Errorf("%s is not a JSON number", name))
			}
		}
	}
	return nil
}

// dateProbe records whether any value decoded into it was not a number.
// It keeps no copy of the value, so skipping a member costs little.
type dateProbe struct{ notNumber bool }

// UnmarshalJSON receives a value encoding/json has checked to be well
// formed; in JSON, and only there, a number starts with a minus sign or
// a digit (RFC 8259 §6).
func (p *dateProbe) UnmarshalJSON(value []byte) error {
	if len(value) == 0 || value[0] != '-' && (value[0] < '0' || value[0] > '9') {
		p.notNumber = true
	}
	return nil
}

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

// checkNumericDates refuses (detail claims) claims in which any
// top-level exp, iat or nbf member, each time it appears, has a value
// that is not a number. Names are compared as jwx compares them: exactly,
// after unescaping. Anything it cannot read it leaves to jwx, which then
// refuses it.
func checkNumericDates(claims []byte) error {
	dec := json.NewDecoder(bytes.NewReader(claims))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		name, err := dec.Token()
		if err != nil {
			return nil
		}
		v, err := dec.Token()
		if err != nil {
			return nil
		}
		switch name {
		case jwt.ExpirationKey, jwt.IssuedAtKey, jwt.NotBeforeKey:
			if _, ok := v.(json.Number); !ok {
				return refuse("claims", fmt.Errorf("%s is not a JSON number", name))
			}
		}
		if _, ok := v.(json.Delim); ok { // an object or array: skip to its end
			for depth := 1; depth > 0; {
				t, err := dec.Token()
				if err != nil {
					return nil
				}
				switch t {
				case json.Delim('{'), json.Delim('['):
					depth++
				case json.Delim('}'), json.Delim(']'):
					depth--
				}
			}
		}
	}
	return nil
}

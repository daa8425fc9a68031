package domain

import (
	"cmp"
	"errors"
	"math"
	"math/big"
	"strconv"
	"strings"
)

// Decimal is an exact fixed-point number: Units × 10^-Scale. Money is kept
// with scale 2 and rates with scale 4, so no value ever passes through a
// float.
type Decimal struct {
	Units int64
	Scale int
}

var (
	errDecimalSyntax    = errors.New("no es un número decimal")
	errDecimalExponent  = errors.New("no se acepta notación exponencial")
	errDecimalFraction  = errors.New("demasiados decimales")
	errDecimalPrecision = errors.New("demasiados dígitos")
)

// ParseDecimal reads a plain decimal ("14334900", "14334900.5", "-0.25")
// into the given scale and at most precision digits in all. Extra fraction
// digits are accepted only when they are zeros: rounding would change what
// the partner sent.
func ParseDecimal(s string, precision, scale int) (Decimal, error) {
	if strings.IndexByte(s, 'e') >= 0 || strings.IndexByte(s, 'E') >= 0 {
		return Decimal{}, errDecimalExponent
	}
	neg := false
	switch {
	case strings.HasPrefix(s, "-"):
		neg, s = true, s[1:]
	case strings.HasPrefix(s, "+"):
		s = s[1:]
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	if intPart == "" || hasDot && frac == "" || !allDigits(intPart) || !allDigits(frac) {
		return Decimal{}, errDecimalSyntax
	}
	intPart = strings.TrimLeft(intPart, "0")
	if len(frac) > scale {
		if strings.Trim(frac[scale:], "0") != "" {
			return Decimal{}, errDecimalFraction
		}
		frac = frac[:scale]
	}
	if len(intPart) > precision-scale {
		return Decimal{}, errDecimalPrecision
	}
	// The digits read as one integer, the fraction padded with zeros to
	// scale, without building their text (every money field pays this).
	var units int64
	push := func(d int64) bool {
		if units > (math.MaxInt64-d)/10 {
			return false
		}
		units = units*10 + d
		return true
	}
	for _, part := range [2]string{intPart, frac} {
		for i := 0; i < len(part); i++ {
			if !push(int64(part[i] - '0')) {
				return Decimal{}, errDecimalPrecision
			}
		}
	}
	for range scale - len(frac) {
		if !push(0) {
			return Decimal{}, errDecimalPrecision
		}
	}
	if neg {
		units = -units
	}
	return Decimal{Units: units, Scale: scale}, nil
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}

// String renders the decimal with exactly Scale fraction digits.
func (d Decimal) String() string {
	var b [24]byte
	return string(d.appendTo(b[:0]))
}

// appendTo appends String's text to b.
func (d Decimal) appendTo(b []byte) []byte {
	u := d.Units
	if u < 0 {
		b = append(b, '-')
		u = -u
	}
	start := len(b)
	b = strconv.AppendInt(b, u, 10)
	if d.Scale <= 0 {
		return b
	}
	// Zeros in front so that there is a digit before the point.
	for len(b)-start <= d.Scale {
		b = append(b, 0)
		copy(b[start+1:], b[start:])
		b[start] = '0'
	}
	point := len(b) - d.Scale
	b = append(b, 0)
	copy(b[point+1:], b[point:])
	b[point] = '.'
	return b
}

// Cmp compares two decimals by value, whatever their scales: -1, 0 or 1.
func (d Decimal) Cmp(o Decimal) int {
	if d.Scale == o.Scale {
		return cmp.Compare(d.Units, o.Units)
	}
	return d.big(max(d.Scale, o.Scale)).Cmp(o.big(max(d.Scale, o.Scale)))
}

// big returns Units scaled to scale (≥ Scale) as a big.Int: exact where
// an int64 could overflow.
func (d Decimal) big(scale int) *big.Int {
	n := big.NewInt(d.Units)
	return n.Mul(n, new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale-d.Scale)), nil))
}

// CanonicalDecimal reports whether s is a value of f, a money or rate
// field, in the one form the v1 API takes (contract §10): digits with no
// sign and no spaces, no leading zero but the one of "0.50", and at most
// the column's integer digits and the field's decimals ("1.000" is not
// money). Range rules (> 0, a rate's range) are checked after it, as on
// the legacy path. The OpenAPI document's Money, PositiveMoney and Rate
// patterns say the same with the ranges added; TestV1SQLite's "details:
// money and rate strings" holds the two to one table.
func CanonicalDecimal(s string, f *Field) bool {
	intDigits, scale := moneyPrec-moneyScl, moneyScl
	if f.Type == TypeRate {
		intDigits, scale = ratePrec-rateScl, f.Decimals
	}
	intPart, frac, hasDot := strings.Cut(s, ".")
	switch {
	case intPart == "" || len(intPart) > intDigits || !allDigits(intPart):
		return false
	case len(intPart) > 1 && intPart[0] == '0':
		return false
	case hasDot && (frac == "" || len(frac) > scale || !allDigits(frac)):
		return false
	}
	return true
}

// scaleOf is the number of decimals a value of f, a money or rate field,
// may have.
func scaleOf(f *Field) int {
	if f.Type == TypeRate {
		return f.Decimals
	}
	return moneyScl
}

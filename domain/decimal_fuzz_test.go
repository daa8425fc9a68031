package domain

import (
	"math"
	"math/big"
	"strings"
	"testing"
)

// FuzzParseDecimal holds ParseDecimal against math/big: whatever it
// accepts is the exact value written, scaled, within the precision; what
// it refuses is not a plain decimal, has nonzero digits past the scale,
// or has too many digits.
func FuzzParseDecimal(f *testing.F) {
	for _, s := range []string{"14334900", "14334900.50", "-0.25", "+1", "0", "00.000", "1e5", "1.", ".5", "92233720368547758.07",
		"9223372036854775807", "9223372036854775808", "-9223372036854775808", "1.23450", "1.23456", "٣", "1_000"} {
		f.Add(s, 18, 2)
		f.Add(s, 9, 4)
		f.Add(s, 40, 0)
	}
	f.Fuzz(func(t *testing.T, s string, precision, scale int) {
		if scale < 0 || scale > 30 || precision < 0 || precision > 60 {
			t.Skip()
		}
		d, err := ParseDecimal(s, precision, scale)
		body := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "+")
		if len(body) < len(s)-1 {
			body = "x" // "+-1", "--1": not a plain decimal
		}
		intPart, frac, hasDot := strings.Cut(body, ".")
		plain := intPart != "" && !(hasDot && frac == "") && allDigits(intPart) && allDigits(frac)
		if !plain {
			if err == nil {
				t.Fatalf("ParseDecimal(%q) = %v, want an error", s, d)
			}
			return
		}
		exact, ok := new(big.Rat).SetString(s)
		if !ok {
			t.Fatalf("big.Rat refuses %q", s)
		}
		scaled := new(big.Rat).Mul(exact, new(big.Rat).SetInt(new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil)))
		sig := strings.TrimLeft(intPart, "0")
		switch {
		case !scaled.IsInt():
			if err != errDecimalFraction {
				t.Fatalf("ParseDecimal(%q, %d, %d) = %v, %v; want %v", s, precision, scale, d, err, errDecimalFraction)
			}
		case len(sig) > precision-scale, !scaled.Num().IsInt64():
			if err != errDecimalPrecision {
				t.Fatalf("ParseDecimal(%q, %d, %d) = %v, %v; want %v", s, precision, scale, d, err, errDecimalPrecision)
			}
		default:
			if err == errDecimalPrecision && scaled.Num().Cmp(big.NewInt(math.MinInt64)) == 0 {
				return // -9223372036854775808 alone: its digits are read as a positive number first, as before
			}
			if err != nil || d.Units != scaled.Num().Int64() || d.Scale != scale {
				t.Fatalf("ParseDecimal(%q, %d, %d) = %+v, %v; want units %s", s, precision, scale, d, err, scaled.Num())
			}
		}
	})
}

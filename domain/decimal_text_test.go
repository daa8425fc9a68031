package domain

import (
	"strconv"
	"strings"
	"testing"
)

// TestDecimalTextAsBefore: String (and appendTo, which Identity hashes)
// writes every decimal as the plain concatenation it replaced did: the
// stored form and the identity of a report depend on it, byte for byte.
func TestDecimalTextAsBefore(t *testing.T) {
	plain := func(d Decimal) string {
		u := d.Units
		neg := u < 0
		if neg {
			u = -u
		}
		s := strconv.FormatInt(u, 10)
		if d.Scale > 0 {
			if len(s) <= d.Scale {
				s = strings.Repeat("0", d.Scale-len(s)+1) + s
			}
			s = s[:len(s)-d.Scale] + "." + s[len(s)-d.Scale:]
		}
		if neg {
			s = "-" + s
		}
		return s
	}
	units := []int64{0, 1, -1, 9, 10, 99, 100, 101, -105, 12345, -12345, 999999999999999999, -999999999999999999}
	for _, u := range units {
		for scale := 0; scale <= 6; scale++ {
			d := Decimal{Units: u, Scale: scale}
			if got, want := d.String(), plain(d); got != want {
				t.Errorf("%+v: %q, want %q", d, got, want)
			}
			if got, want := string(d.appendTo([]byte("x"))), "x"+plain(d); got != want {
				t.Errorf("%+v appended: %q, want %q", d, got, want)
			}
		}
	}
}

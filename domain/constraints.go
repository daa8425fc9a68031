package domain

import (
	"fmt"
	"strconv"
	"strings"
)

// A field's constraints column of fields.csv, read into the Field: every
// constraint is understood or refused (LoadCatalogue), none passes
// unread.

// refByPartner maps the partner names that constraints refer to.
var refByPartner = map[string]string{"Monto Aprobado": "monto_aprobado"}

func (f *Field) parseConstraints() error {
	c := strings.TrimSpace(f.Raw)
	switch f.Type {
	case TypeString, TypeEmail:
		v, ok := strings.CutPrefix(c, "max=")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n <= 0 {
			return fmt.Errorf("constraint %q, want max=N", c)
		}
		f.Max = n
	case TypeEnum:
		if c == "" {
			return fmt.Errorf("enum without values")
		}
		for _, v := range strings.Split(c, "|") {
			f.Enum = append(f.Enum, strings.ToUpper(strings.TrimSpace(v)))
		}
	case TypeInteger:
		lo, hi, err := parseRange(c)
		if err != nil {
			return err
		}
		f.RangeMin, f.RangeMax = lo, hi
	case TypePhone:
		r, ok := strings.CutSuffix(c, " digits")
		lo, hi, err := parseRange(r)
		if !ok || err != nil || lo < 1 {
			return fmt.Errorf("phone constraint %q, want A..B digits", c)
		}
		f.RangeMin, f.RangeMax = lo, hi
	case TypeMoney:
		switch {
		case c == ">=0":
		case c == ">0":
			f.Positive = true
		case strings.HasPrefix(c, ">0 and <= "):
			f.Positive = true
			ref, ok := refByPartner[strings.TrimPrefix(c, ">0 and <= ")]
			if !ok {
				return fmt.Errorf("constraint %q names an unknown field", c)
			}
			f.LessEq = ref
		default:
			return fmt.Errorf("money constraint %q not understood", c)
		}
	case TypeRate:
		return f.parseRate(c)
	case TypeDate:
		switch {
		case c == "":
		case strings.HasPrefix(c, ">= "):
			f.NotBefore = strings.TrimPrefix(c, ">= ")
		case c == "not after today + 1 day":
			f.MaxDaysAhead, f.HasAhead = 1, true
		default:
			return fmt.Errorf("date constraint %q not understood", c)
		}
	case TypeDANE:
		v, ok := strings.CutSuffix(c, " digits")
		n, err := strconv.Atoi(v)
		if !ok || err != nil || n < 1 || n > 9 {
			return fmt.Errorf("dane constraint %q, want N digits", c)
		}
		f.Digits = n
	case TypeNIT, TypeBoolean:
		if c != "" {
			return fmt.Errorf("constraint %q not expected for %s", c, f.Type)
		}
	case TypeIdentification:
		// The characters allowed depend on the identification type, a
		// field of its own: "see <that field>" names it; the load checks
		// that it is an enum of known types.
		ref, ok := strings.CutPrefix(c, "see ")
		if !ok || ref == "" {
			return fmt.Errorf("identification constraint %q, want see <type field>", c)
		}
		f.KindField = ref
	case TypeCreditNumber:
		return f.parseCreditNumber(c)
	case TypeFile:
		if c != "FileDto" {
			return fmt.Errorf("file constraint %q, want FileDto", c)
		}
	default:
		return fmt.Errorf("unknown type %q", f.Type)
	}
	return nil
}

// creditAlphabet is the only alphabet a credit number may have: it names a
// file (§2), so the catalogue may narrow its length but not widen either.
const creditAlphabet = "A-Z a-z 0-9 -"

// parseCreditNumber reads "A..B of A-Z a-z 0-9 -", optionally followed by a
// parenthesised remark.
func (f *Field) parseCreditNumber(c string) error {
	rng, rest, _ := strings.Cut(c, " of ")
	lo, hi, err := parseRange(rng)
	if err != nil || lo < 1 || hi > CreditNumberMaxLen {
		return fmt.Errorf("credit number constraint %q, want A..B of %s with 1 <= A <= B <= %d", c, creditAlphabet, CreditNumberMaxLen)
	}
	if rest, _, _ = strings.Cut(rest, " ("); strings.TrimSpace(rest) != creditAlphabet {
		return fmt.Errorf("credit number alphabet %q: only %q can name a file", rest, creditAlphabet)
	}
	f.RangeMin, f.RangeMax = lo, hi
	return nil
}

// parseRate reads "A..B (percent; N decimals)".
func (f *Field) parseRate(c string) error {
	rng, rest, _ := strings.Cut(c, " ")
	lo, hi, err := parseRange(rng)
	dec, ok := strings.CutPrefix(rest, "(percent; ")
	dec, ok2 := strings.CutSuffix(dec, " decimals)")
	n, err2 := strconv.Atoi(dec)
	switch {
	case err != nil || !ok || !ok2 || err2 != nil:
		return fmt.Errorf("rate constraint %q, want A..B (percent; N decimals)", c)
	case lo < 0 || hi >= rateIntMax:
		return fmt.Errorf("rate range %q: the store holds 0 to %d", rng, rateIntMax-1)
	case n < 0 || n > rateScl:
		return fmt.Errorf("rate decimals %d: the store holds at most %d", n, rateScl)
	}
	f.RangeMin, f.RangeMax, f.Decimals = lo, hi, n
	return nil
}

func parseRange(s string) (int64, int64, error) {
	a, b, ok := strings.Cut(s, "..")
	lo, err1 := strconv.ParseInt(a, 10, 64)
	hi, err2 := strconv.ParseInt(b, 10, 64)
	if !ok || err1 != nil || err2 != nil || lo > hi {
		return 0, 0, fmt.Errorf("range %q, want A..B", s)
	}
	return lo, hi, nil
}

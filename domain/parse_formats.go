package domain

import (
	"errors"
	"strconv"
	"strings"
	"time"
)

// ParseNIT checks a NIT: 9 or 10 digits, optionally "-" and a check digit
// that must pass the DIAN mod-11 rule. Dots and spaces are ignored. It
// returns "base-dv" or "base".
func ParseNIT(s string) (string, *fieldErr) {
	s = dropBytes(s, ". ")
	base, dv, hasDV := strings.Cut(s, "-")
	if len(base) < 9 || len(base) > 10 || !allDigits(base) || hasDV && (len(dv) != 1 || !allDigits(dv)) {
		return "", bad(CodeInvalidFormat, "NIT de 9 o 10 dígitos, con dígito de verificación opcional tras un guion")
	}
	if !hasDV {
		return base, nil
	}
	if want := NITCheckDigit(base); int(dv[0]-'0') != want {
		return "", bad(CodeCheckDigit, "el dígito de verificación no corresponde al NIT")
	}
	return base + "-" + dv, nil
}

// NITCheckDigit computes the DIAN check digit of a NIT base.
func NITCheckDigit(base string) int {
	weights := [...]int{3, 7, 13, 17, 19, 23, 29, 37, 41, 43, 47, 53, 59, 67, 71}
	sum := 0
	for i := 0; i < len(base) && i < len(weights); i++ {
		sum += int(base[len(base)-1-i]-'0') * weights[i]
	}
	r := sum % 11
	if r > 1 {
		return 11 - r
	}
	return r
}

// ParseDate reads YYYY-MM-DD, an RFC 3339 or .NET date-time (the date part
// is kept as written) or DD/MM/YYYY.
func ParseDate(s string) (time.Time, *fieldErr) {
	var d time.Time
	var err error
	switch {
	case len(s) == 10 && s[2] == '/' && s[5] == '/':
		d, err = time.Parse("02/01/2006", s)
	case len(s) == 10:
		d, err = isoDate(s)
	case len(s) > 10:
		if s[10] != 'T' && s[10] != 't' && s[10] != ' ' {
			return d, bad(CodeInvalidFormat, "fecha no reconocida; use AAAA-MM-DD o DD/MM/AAAA")
		}
		if _, terr := parseClock(s[11:]); terr != nil {
			return d, bad(CodeInvalidFormat, "hora no reconocida en la fecha; use AAAA-MM-DD o AAAA-MM-DDTHH:MM:SS")
		}
		d, err = isoDate(s[:10])
	default:
		err = errDateSyntax
	}
	if err != nil {
		return d, bad(CodeInvalidFormat, "fecha no válida; use AAAA-MM-DD o DD/MM/AAAA")
	}
	if d.Year() < minYear || d.Year() > maxYear {
		return d, bad(CodeOutOfRange, "año fuera de rango ("+strconv.Itoa(minYear)+"-"+strconv.Itoa(maxYear)+")")
	}
	return d, nil
}

// errDateSyntax says a date or a time is not written in a form read here;
// the caller answers with the formats it accepts.
var errDateSyntax = errors.New("no es una fecha")

// isoDate reads YYYY-MM-DD exactly as time.Parse("2006-01-02") does (a
// day must exist in its month), without its layout machinery.
func isoDate(s string) (time.Time, error) {
	num := func(a, b int) (int, bool) {
		n := 0
		for i := a; i < b; i++ {
			if s[i] < '0' || s[i] > '9' {
				return 0, false
			}
			n = n*10 + int(s[i]-'0')
		}
		return n, true
	}
	y, ok1 := num(0, 4)
	m, ok2 := num(5, 7)
	d, ok3 := num(8, 10)
	if !ok1 || !ok2 || !ok3 || s[4] != '-' || s[7] != '-' || m < 1 || m > 12 || d < 1 {
		return time.Time{}, errDateSyntax
	}
	t := time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC)
	if t.Day() != d {
		return time.Time{}, errDateSyntax // 2026-02-30 and the like
	}
	return t, nil
}

// parseClock checks the time part of a date-time: HH:MM:SS, optional
// fraction, optional zone (Z or ±HH:MM).
func parseClock(s string) (time.Time, error) {
	for _, layout := range []string{"15:04:05.999999999Z07:00", "15:04:05.999999999", "15:04:05Z07:00", "15:04:05"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t, nil
		}
	}
	return time.Time{}, errDateSyntax
}

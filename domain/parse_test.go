package domain

import (
	"strings"
	"testing"
	"time"
)

func str(s string) RawValue { return RawValue{Kind: RawString, Text: s} }
func num(s string) RawValue { return RawValue{Kind: RawNumber, Text: s} }
func boolean(b bool) RawValue {
	return RawValue{Kind: RawBool, Bool: b}
}

var (
	null   = RawValue{Kind: RawNull}
	array  = RawValue{Kind: RawArray}
	object = RawValue{Kind: RawObject}
)

// render gives a parsed value in the form the store keeps.
func render(f Field, v Value) string {
	switch f.Type {
	case TypeMoney, TypeRate:
		return v.Dec.String()
	case TypeDate:
		return v.Date.Format("2006-01-02")
	case TypeInteger:
		return itoa64(v.Int)
	case TypeBoolean:
		if v.Bool {
			return "true"
		}
		return "false"
	}
	return v.Str
}

func itoa64(n int64) string {
	if n < 0 {
		return "-" + itoa64(-n)
	}
	if n < 10 {
		return string(rune('0' + n))
	}
	return itoa64(n/10) + string(rune('0'+n%10))
}

// TestParseValue covers every field type of fields.csv with good and bad
// values and each constraint. want is the stored form; code the problem.
func TestParseValue(t *testing.T) {
	cat := DefaultCatalogue()
	tests := []struct {
		field string // internal name
		raw   RawValue
		want  string
		code  string
	}{
		// string: trimmed, max length in characters, no control characters
		{"convenio", str("  CV-1  "), "CV-1", ""},
		{"convenio", str("123456789012345678901234567890"), "123456789012345678901234567890", ""},
		{"convenio", str("1234567890123456789012345678901"), "", CodeTooLong},
		{"primer_nombre", str("Ñandú Pérez"), "Ñandú Pérez", ""},
		{"primer_nombre", str("Ana\x00"), "", CodeInvalidFormat},
		{"primer_nombre", num("12"), "", CodeInvalidType},
		{"primer_nombre", array, "", CodeInvalidType},
		{"primer_nombre", object, "", CodeInvalidType},
		{"observaciones", str(strings.Repeat("x", 1001)), "", CodeTooLong},
		{"observaciones", str(strings.Repeat("ñ", 1000)), strings.Repeat("ñ", 1000), ""},
		// enum: case-insensitive, stored upper case; DIAN codes for tipo_identificacion
		{"genero", str("f"), "F", ""},
		{"genero", str("X"), "", CodeInvalidValue},
		{"tipo_identificacion", str("cc"), "CC", ""},
		{"tipo_identificacion", num("13"), "CC", ""},
		{"tipo_identificacion", str("31"), "NIT", ""},
		{"tipo_identificacion", str("91"), "NUIP", ""},
		{"tipo_identificacion", str("99"), "", CodeInvalidValue},
		{"medio_desembolso", str("Transferencia"), "TRANSFERENCIA", ""},
		// nit: 9-10 digits, optional DIAN check digit
		{"nit_pagaduria", str("890.980.153-1"), "890980153-1", ""},
		{"nit_pagaduria", str("890980153"), "890980153", ""},
		{"nit_pagaduria", num("8300537006"), "8300537006", ""},
		{"nit_pagaduria", str("890980153-3"), "", CodeCheckDigit},
		{"nit_pagaduria", str("12345678"), "", CodeInvalidFormat},
		{"nit_pagaduria", str("89098015A"), "", CodeInvalidFormat},
		{"nit_pagaduria", str("890980153-33"), "", CodeInvalidFormat},
		// identification: separators stripped, 3..20 letters or digits
		{"nit_cc", str("1.020.304.050"), "1020304050", ""},
		{"nit_cc", num("1020304050"), "1020304050", ""},
		{"nit_cc", str("ab 123"), "AB123", ""},
		{"nit_cc", str("12"), "", CodeInvalidFormat},
		{"nit_cc", str("123456789012345678901"), "", CodeInvalidFormat},
		{"nit_cc", str("12/34"), "", CodeInvalidFormat},
		// date: three formats, real calendar days
		{"fecha_nacimiento", str("1987-06-30"), "1987-06-30", ""},
		{"fecha_nacimiento", str("30/06/1987"), "1987-06-30", ""},
		{"fecha_nacimiento", str("1987-06-30T23:59:59"), "1987-06-30", ""},
		{"fecha_nacimiento", str("1987-06-30T23:59:59.123Z"), "1987-06-30", ""},
		{"fecha_nacimiento", str("1987-06-30T10:00:00-05:00"), "1987-06-30", ""},
		{"fecha_nacimiento", str("1987-02-30"), "", CodeInvalidFormat},
		{"fecha_nacimiento", str("30-06-1987"), "", CodeInvalidFormat},
		{"fecha_nacimiento", str("1987-06-30X"), "", CodeInvalidFormat},
		{"fecha_nacimiento", str("1987-06-30T25:00:00"), "", CodeInvalidFormat},
		{"fecha_nacimiento", str("1800-01-01"), "", CodeOutOfRange},
		{"fecha_nacimiento", num("19870630"), "", CodeInvalidType},
		// dane: five digits, as a string
		{"codigo_dane_residencia", str("05001"), "05001", ""},
		{"codigo_dane_residencia", num("5001"), "", CodeInvalidType},
		{"codigo_dane_residencia", str("5001"), "", CodeInvalidFormat},
		{"codigo_dane_residencia", str("0500A"), "", CodeInvalidFormat},
		// integer: number or digit string, range
		{"estrato", num("0"), "0", ""},
		{"estrato", str("6"), "6", ""},
		{"estrato", num("7"), "", CodeOutOfRange},
		{"estrato", num("-1"), "", CodeOutOfRange},
		{"plazo_meses", num("480"), "480", ""},
		{"plazo_meses", num("0"), "", CodeOutOfRange},
		{"plazo_meses", num("1.5"), "", CodeInvalidFormat},
		{"plazo_meses", num("1e2"), "", CodeInvalidFormat},
		{"plazo_meses", str("doce"), "", CodeInvalidFormat},
		{"plazo_meses", boolean(true), "", CodeInvalidType},
		{"dias_interes_anticipado", num("90"), "90", ""},
		{"dias_interes_anticipado", num("91"), "", CodeOutOfRange},
		// phone: digits only, count range
		{"telefono_fijo", str("(604) 444-5566"), "6044445566", ""},
		{"telefono_fijo", str("444556"), "", CodeInvalidFormat},
		{"celular", str("+57 300 123 4567"), "573001234567", ""},
		{"celular", str("300123456"), "", CodeInvalidFormat},
		{"celular", str("300-ABC-4567"), "", CodeInvalidFormat},
		// email
		{"correo_electronico", str("ana@example.com"), "ana@example.com", ""},
		{"correo_electronico", str("ana@example"), "", CodeInvalidFormat},
		{"correo_electronico", str("ana example.com"), "", CodeInvalidFormat},
		// boolean
		{"es_pep", boolean(true), "true", ""},
		{"es_pep", num("0"), "false", ""},
		{"es_pep", str("S"), "true", ""},
		{"es_pep", str("no"), "false", ""},
		{"es_pep", str("Sí"), "true", ""},
		{"es_pep", str("quizá"), "", CodeInvalidValue},
		{"es_pep", num("2"), "", CodeInvalidValue},
		// money: exact decimals, 18,2, >= 0 or > 0
		{"salario_basico", num("14334900.00"), "14334900.00", ""},
		{"salario_basico", str("14334900"), "14334900.00", ""},
		{"salario_basico", num("0"), "0.00", ""},
		{"salario_basico", num("-0"), "0.00", ""},
		{"salario_basico", num("0.1"), "0.10", ""},
		{"salario_basico", num("12.500"), "12.50", ""},
		{"salario_basico", num("9999999999999999.99"), "9999999999999999.99", ""},
		{"salario_basico", num("99999999999999999"), "", CodeInvalidFormat},
		{"salario_basico", num("12.345"), "", CodeInvalidFormat},
		{"salario_basico", num("1.4e7"), "", CodeInvalidFormat},
		{"salario_basico", num("1e400"), "", CodeInvalidFormat},
		{"salario_basico", num("-1"), "", CodeOutOfRange},
		{"salario_basico", str("1,000"), "", CodeInvalidFormat},
		{"salario_basico", str("."), "", CodeInvalidFormat},
		{"salario_basico", boolean(false), "", CodeInvalidType},
		{"monto_aprobado", num("0"), "", CodeOutOfRange},
		{"monto_aprobado", num("0.01"), "0.01", ""},
		// rate: 9,4, 0..100
		{"tasa_nominal_mensual", num("1.85"), "1.8500", ""},
		{"tasa_nominal_mensual", str("100"), "100.0000", ""},
		{"tasa_nominal_mensual", num("0"), "0.0000", ""},
		{"tasa_nominal_mensual", num("100.0001"), "", CodeOutOfRange},
		{"tasa_nominal_mensual", num("1.23456"), "", CodeInvalidFormat},
		{"tasa_nominal_mensual", num("-0.5"), "", CodeOutOfRange},
		// credit_number: names the file
		{"numero_credito", str("CR-2026-0001"), "CR-2026-0001", ""},
		{"numero_credito", num("123456"), "123456", ""},
		{"numero_credito", str("123456789012345678901234567890"), "123456789012345678901234567890", ""},
		{"numero_credito", str("1234567890123456789012345678901"), "", CodeInvalidFormat},
		{"numero_credito", str("../etc/passwd"), "", CodeInvalidFormat},
		{"numero_credito", str("a/b"), "", CodeInvalidFormat},
		{"numero_credito", str("a\x00b"), "", CodeInvalidFormat},
		{"numero_credito", str("CR\u20110001"), "", CodeInvalidFormat}, // non-breaking hyphen look-alike
		{"numero_credito", str("CR_0001"), "", CodeInvalidFormat},
		{"numero_credito", str("CR.0001"), "", CodeInvalidFormat},
	}
	for _, tt := range tests {
		f, ok := cat.ByInternal(tt.field)
		if !ok {
			t.Fatalf("no field %s", tt.field)
		}
		v, present, fe := parseValue(&f, tt.raw)
		switch {
		case tt.code != "":
			if fe == nil || fe.code != tt.code {
				t.Errorf("%s %s %q: got %q (%+v), want problem %s", tt.field, tt.raw.Kind, tt.raw.Text, render(f, v), fe, tt.code)
			}
		case fe != nil:
			t.Errorf("%s %s %q: problem %s (%s), want %q", tt.field, tt.raw.Kind, tt.raw.Text, fe.code, fe.msg, tt.want)
		case !present || render(f, v) != tt.want:
			t.Errorf("%s %s %q = %q (present %v), want %q", tt.field, tt.raw.Kind, tt.raw.Text, render(f, v), present, tt.want)
		}
	}
}

// TestParseValueAbsent: null and "" mean absent for every type.
func TestParseValueAbsent(t *testing.T) {
	for _, f := range DefaultCatalogue().Fields {
		if f.Type == TypeFile {
			continue
		}
		for _, raw := range []RawValue{null, str(""), str("   ")} {
			if _, present, fe := parseValue(&f, raw); present || fe != nil {
				t.Errorf("%s: %v counted as present=%v problem=%v", f.Internal, raw, present, fe)
			}
		}
	}
}

func TestNITCheckDigit(t *testing.T) {
	for base, want := range map[string]int{"800197268": 4, "890903938": 8, "899999068": 1, "890980153": 1} {
		if got := NITCheckDigit(base); got != want {
			t.Errorf("NITCheckDigit(%s) = %d, want %d", base, got, want)
		}
	}
}

func TestDecimal(t *testing.T) {
	for _, tt := range []struct {
		in         string
		prec, scl  int
		want, fail string
	}{
		{"0", 18, 2, "0.00", ""},
		{"00012.3", 18, 2, "12.30", ""},
		{"-12.30", 18, 2, "-12.30", ""},
		{"+5", 9, 4, "5.0000", ""},
		{"0.0001", 9, 4, "0.0001", ""},
		{"12.", 18, 2, "", "syntax"},
		{".5", 18, 2, "", "syntax"},
		{"", 18, 2, "", "syntax"},
		{"-", 18, 2, "", "syntax"},
		{"1E5", 18, 2, "", "exponent"},
		{"99999.9999", 9, 4, "99999.9999", ""},
		{"100000", 9, 4, "", "precision"},
	} {
		d, err := ParseDecimal(tt.in, tt.prec, tt.scl)
		if tt.fail != "" {
			if err == nil {
				t.Errorf("ParseDecimal(%q) = %s, want %s error", tt.in, d, tt.fail)
			}
			continue
		}
		if err != nil || d.String() != tt.want {
			t.Errorf("ParseDecimal(%q) = %s, %v; want %s", tt.in, d, err, tt.want)
		}
	}
}

func TestParseDateKeepsWrittenDay(t *testing.T) {
	// A .NET date-time late in the day west of UTC stays on its own date.
	d, fe := ParseDate("2026-11-26T23:30:00-05:00")
	if fe != nil || d != time.Date(2026, 11, 26, 0, 0, 0, 0, time.UTC) {
		t.Fatalf("ParseDate = %v, %v", d, fe)
	}
}

// TestISODateAgreesWithTimeParse: the hand-written YYYY-MM-DD reader
// accepts and refuses exactly what time.Parse("2006-01-02") does.
func TestISODateAgreesWithTimeParse(t *testing.T) {
	cases := []string{"2026-02-29", "2024-02-29", "2026-02-30", "2026-13-01", "2026-00-10", "2026-01-00", "2026-1-010",
		"2026/01/01", "20260101xx", "2026-01-3a", "+026-01-01", "0000-01-01", "9999-12-31", "2026-04-31", "2026-12-31"}
	for d := time.Date(1899, 12, 25, 0, 0, 0, 0, time.UTC); d.Year() < 2201; d = d.AddDate(0, 0, 1) {
		cases = append(cases, d.Format("2006-01-02"))
	}
	for _, s := range cases {
		want, werr := time.Parse("2006-01-02", s)
		got, gerr := isoDate(s)
		if (werr == nil) != (gerr == nil) || werr == nil && !got.Equal(want) {
			t.Errorf("isoDate(%q) = %v, %v; time.Parse = %v, %v", s, got, gerr, want, werr)
		}
	}
}

func TestDropBytes(t *testing.T) {
	for in, want := range map[string]string{"1.020.304-050 ": "1020304050", "1020304050": "1020304050", "": "", "...": ""} {
		if got := dropBytes(in, ".- "); got != want {
			t.Errorf("dropBytes(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestDecimalCmpAcrossScales: Cmp compares values, not units; a rate
// (scale 4) and money (scale 2) of one value are equal.
func TestDecimalCmpAcrossScales(t *testing.T) {
	for _, tt := range []struct {
		a, b Decimal
		want int
	}{
		{Decimal{150, 2}, Decimal{15000, 4}, 0},   // 1.50 = 1.5000
		{Decimal{150, 2}, Decimal{1500, 4}, 1},    // 1.50 > 0.1500
		{Decimal{-1, 4}, Decimal{0, 2}, -1},       // -0.0001 < 0.00
		{Decimal{12, 2}, Decimal{13, 2}, -1},      // same scale
		{Decimal{1 << 62, 2}, Decimal{1, 4}, 1},   // scaling would overflow an int64
		{Decimal{-1 << 62, 0}, Decimal{1, 4}, -1}, // and its negative
	} {
		if got := tt.a.Cmp(tt.b); got != tt.want {
			t.Errorf("%s.Cmp(%s) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := tt.b.Cmp(tt.a); got != -tt.want {
			t.Errorf("%s.Cmp(%s) = %d, want %d", tt.b, tt.a, got, -tt.want)
		}
	}
}

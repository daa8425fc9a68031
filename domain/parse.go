package domain

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// problem codes sent to the partner.
const (
	CodeRequired       = "required"
	CodeUnknownField   = "unknown_field"
	CodeDuplicateField = "duplicate_field"
	CodeInvalidType    = "invalid_type"
	CodeInvalidFormat  = "invalid_format"
	CodeTooLong        = "too_long"
	CodeOutOfRange     = "out_of_range"
	CodeInvalidValue   = "invalid_value"
	CodeCheckDigit     = "invalid_check_digit"
	CodeInvalidFile    = "invalid_file"
	CodeFileType       = "file_type_not_allowed"
	CodeFileMismatch   = "file_type_mismatch"
	CodeFileTooLarge   = "file_too_large"
	CodeInconsistent   = "inconsistent"
	// CodeNumberNotAllowed: a JSON number for money or a rate where only
	// strings are taken (the v1 API: a client that sent a float has
	// already rounded it).
	CodeNumberNotAllowed = "number_not_allowed"
	codeAbsent           = "" // not a problem: the value counts as absent
	maxYear, minYear     = 2199, 1900
	moneyPrec, moneyScl  = 18, 2
	ratePrec, rateScl    = 9, 4
	// rateIntMax is one above the largest whole part a rate column holds:
	// 10^(ratePrec-rateScl).
	rateIntMax = 100000
)

// dianIDCodes are the DIAN numeric codes of the identification types.
var dianIDCodes = map[string]string{
	"11": "RC", "12": "TI", "13": "CC", "22": "CE", "31": "NIT",
	"41": "PA", "47": "PEP", "48": "PPT", "91": "NUIP",
}

type fieldErr struct{ code, msg string }

func bad(code, msg string) *fieldErr { return &fieldErr{code, msg} }

// parseValue interprets one raw value for a field. It returns present=false
// for null and "" (absent), or a problem.
func parseValue(f *Field, raw RawValue) (v Value, present bool, fe *fieldErr) {
	if raw.Kind == RawNull || raw.Kind == RawString && strings.TrimSpace(raw.Text) == "" {
		return Value{}, false, nil
	}
	if raw.Kind == RawArray || raw.Kind == RawObject && f.Type != TypeFile {
		return Value{}, true, bad(CodeInvalidType, "se esperaba un valor simple, llegó "+raw.Kind.String())
	}
	text := strings.TrimSpace(raw.Text)
	switch f.Type {
	case TypeString, TypeEmail:
		if raw.Kind != RawString {
			return v, true, bad(CodeInvalidType, "se esperaba texto, llegó "+raw.Kind.String())
		}
		if n := utf8.RuneCountInString(text); n > f.Max {
			return v, true, bad(CodeTooLong, "máximo "+strconv.Itoa(f.Max)+" caracteres, llegaron "+strconv.Itoa(n))
		}
		if hasControl(text) {
			return v, true, bad(CodeInvalidFormat, "contiene caracteres de control")
		}
		if f.Type == TypeEmail && !looksLikeEmail(text) {
			return v, true, bad(CodeInvalidFormat, "no es un correo electrónico válido")
		}
		v.Str = text
	case TypeEnum:
		if raw.Kind != RawString && raw.Kind != RawNumber {
			return v, true, bad(CodeInvalidType, "se esperaba texto, llegó "+raw.Kind.String())
		}
		up := strings.ToUpper(text)
		if f.Internal == "tipo_identificacion" {
			if code, ok := dianIDCodes[up]; ok {
				up = code
			}
		}
		if !contains(f.Enum, up) {
			return v, true, bad(CodeInvalidValue, "valor no permitido; se acepta uno de "+strings.Join(f.Enum, ", "))
		}
		v.Str = up
	case TypeNIT:
		if raw.Kind != RawString && raw.Kind != RawNumber {
			return v, true, bad(CodeInvalidType, "se esperaba texto, llegó "+raw.Kind.String())
		}
		nit, fe := ParseNIT(text)
		if fe != nil {
			return v, true, fe
		}
		v.Str = nit
	case TypeIdentification:
		if raw.Kind != RawString && raw.Kind != RawNumber {
			return v, true, bad(CodeInvalidType, "se esperaba texto, llegó "+raw.Kind.String())
		}
		id := stripSeparators(text)
		if n := len(id); n < 3 || n > 20 || !isAlnumASCII(id) {
			return v, true, bad(CodeInvalidFormat, "de 3 a 20 letras o dígitos (sin puntos, guiones ni espacios)")
		}
		v.Str = strings.ToUpper(id)
	case TypeDate:
		if raw.Kind != RawString {
			return v, true, bad(CodeInvalidType, "se esperaba una fecha en texto, llegó "+raw.Kind.String())
		}
		d, fe := ParseDate(text)
		if fe != nil {
			return v, true, fe
		}
		v.Date = d
	case TypeDANE:
		if raw.Kind != RawString {
			return v, true, bad(CodeInvalidType, "el código DANE debe enviarse como texto (un número pierde el cero inicial)")
		}
		if len(text) != f.Digits || !allDigits(text) {
			return v, true, bad(CodeInvalidFormat, "se esperaban "+strconv.Itoa(f.Digits)+" dígitos")
		}
		v.Str = text
	case TypeInteger:
		if raw.Kind != RawString && raw.Kind != RawNumber {
			return v, true, bad(CodeInvalidType, "se esperaba un número entero, llegó "+raw.Kind.String())
		}
		t := strings.TrimPrefix(text, "-")
		if t == "" || !allDigits(t) || len(t) > 18 {
			return v, true, bad(CodeInvalidFormat, "se esperaba un número entero")
		}
		n, _ := strconv.ParseInt(text, 10, 64)
		if n < f.RangeMin || n > f.RangeMax {
			return v, true, bad(CodeOutOfRange, "debe estar entre "+strconv.FormatInt(f.RangeMin, 10)+" y "+strconv.FormatInt(f.RangeMax, 10))
		}
		v.Int = n
	case TypePhone:
		if raw.Kind != RawString && raw.Kind != RawNumber {
			return v, true, bad(CodeInvalidType, "se esperaba texto, llegó "+raw.Kind.String())
		}
		digits, ok := phoneDigits(text)
		if !ok {
			return v, true, bad(CodeInvalidFormat, "solo dígitos, espacios, guiones, puntos, paréntesis y + inicial")
		}
		if n := int64(len(digits)); n < f.RangeMin || n > f.RangeMax {
			return v, true, bad(CodeInvalidFormat, "debe tener entre "+strconv.FormatInt(f.RangeMin, 10)+" y "+strconv.FormatInt(f.RangeMax, 10)+" dígitos")
		}
		v.Str = digits
	case TypeBoolean:
		b, ok := parseBool(raw, text)
		if !ok {
			return v, true, bad(CodeInvalidValue, "se esperaba true/false, 1/0, S/N o SI/NO")
		}
		v.Bool = b
	case TypeMoney:
		if raw.Kind != RawString && raw.Kind != RawNumber {
			return v, true, bad(CodeInvalidType, "se esperaba un número, llegó "+raw.Kind.String())
		}
		d, err := ParseDecimal(text, moneyPrec, moneyScl)
		if err != nil {
			return v, true, bad(CodeInvalidFormat, err.Error()+" (se espera p. ej. \"14334900.00\", máximo "+strconv.Itoa(moneyScl)+" decimales)")
		}
		if d.Units < 0 || f.Positive && d.Units == 0 {
			op := "mayor o igual a 0"
			if f.Positive {
				op = "mayor que 0"
			}
			return v, true, bad(CodeOutOfRange, "debe ser "+op)
		}
		v.Dec = d
	case TypeRate:
		if raw.Kind != RawString && raw.Kind != RawNumber {
			return v, true, bad(CodeInvalidType, "se esperaba un número, llegó "+raw.Kind.String())
		}
		d, fe := parseRate(f, text)
		if fe != nil {
			return v, true, fe
		}
		v.Dec = d
	case TypeCreditNumber:
		if raw.Kind != RawString && raw.Kind != RawNumber {
			return v, true, bad(CodeInvalidType, "se esperaba texto, llegó "+raw.Kind.String())
		}
		if n := int64(len(text)); !ValidCreditNumber(text) || n < f.RangeMin || n > f.RangeMax {
			return v, true, bad(CodeInvalidFormat, creditNumberBound(f.RangeMin, f.RangeMax).Es)
		}
		v.Str = text
	case TypeFile:
		// handled by the mapper, which knows the file rules.
	}
	return v, true, nil
}

// parseRate reads a rate with at most f.Decimals fraction digits and checks
// it against f's range in whole percent. The value keeps the store's scale.
func parseRate(f *Field, text string) (Decimal, *fieldErr) {
	d, err := ParseDecimal(text, ratePrec-rateScl+f.Decimals, f.Decimals)
	if err != nil {
		return d, bad(CodeInvalidFormat, err.Error()+" (se espera p. ej. \"12.5\", máximo "+strconv.Itoa(f.Decimals)+" decimales)")
	}
	for d.Scale < rateScl {
		d.Units, d.Scale = d.Units*10, d.Scale+1
	}
	if d.Units < f.RangeMin*10000 || d.Units > f.RangeMax*10000 {
		return d, bad(CodeOutOfRange, "debe estar entre "+strconv.FormatInt(f.RangeMin, 10)+" y "+strconv.FormatInt(f.RangeMax, 10)+" (porcentaje)")
	}
	return d, nil
}

func parseBool(raw RawValue, text string) (bool, bool) {
	switch raw.Kind {
	case RawBool:
		return raw.Bool, true
	case RawNumber, RawString:
		switch strings.ToUpper(text) {
		case "1", "S", "SI", "SÍ", "TRUE":
			return true, true
		case "0", "N", "NO", "FALSE":
			return false, true
		}
	}
	return false, false
}

func phoneDigits(s string) (string, bool) {
	var b strings.Builder
	for i, r := range s {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r == ' ' || r == '-' || r == '.' || r == '(' || r == ')' || r == '+' && i == 0:
		default:
			return "", false
		}
	}
	return b.String(), true
}

func stripSeparators(s string) string { return dropBytes(s, ".- ") }

// dropBytes returns s without the ASCII bytes in set; s itself, without a
// copy, when it has none (the usual case).
func dropBytes(s, set string) string {
	if !strings.ContainsAny(s, set) {
		return s
	}
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if strings.IndexByte(set, s[i]) < 0 {
			b = append(b, s[i])
		}
	}
	return string(b)
}

func isAlnumASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

func hasControl(s string) bool {
	for _, r := range s {
		if r < 0x20 && r != '\t' && r != '\n' && r != '\r' || r == 0x7f {
			return true
		}
	}
	return false
}

func looksLikeEmail(s string) bool {
	local, domainPart, ok := strings.Cut(s, "@")
	return ok && local != "" && !strings.ContainsAny(s, " \t\r\n<>,;\"") &&
		!strings.Contains(domainPart, "@") && strings.Contains(domainPart, ".") &&
		!strings.HasPrefix(domainPart, ".") && !strings.HasSuffix(domainPart, ".")
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

package domain

import (
	"strconv"
	"strings"
	"time"
)

// MapOptions change how a report is read; the zero value reads it as the
// legacy path does.
type MapOptions struct {
	// DecimalsAsStrings refuses a JSON number for a money or rate field
	// (CodeNumberNotAllowed), and a string that is not in the canonical
	// form (CanonicalDecimal; CodeInvalidFormat): the v1 API takes them
	// as such strings only (contract §10).
	DecimalsAsStrings bool
	// Stop, once closed, ends the check of the report's file (the request
	// ran out of time, or its client left): MapReportWith then returns
	// ErrUnavailable (CodeFileCheckStopped). nil never closes.
	Stop <-chan struct{}
}

// MapReport turns the members of a report object into a validated Report,
// read as the legacy path reads it (MapReportWith with zero options).
func (c *Catalogue) MapReport(members []RawField, rules FileRules, now time.Time) (*Report, error) {
	return c.MapReportWith(members, rules, now, MapOptions{})
}

// MapReportWith turns the members of a report object into a validated
// Report. It lists every problem it finds, not just the first: unknown and
// duplicate keys, missing required fields, values of the wrong type or
// format, cross-field rules and a bad file. Text values are read in
// Unicode NFC (nfcField), so every surface that reports (HTTP, a CLI, a
// CSV) stores and compares one form. now is the time of receipt; "today"
// is its UTC date. A file check stopped by opts.Stop ends it with
// ErrUnavailable (CodeFileCheckStopped), not with problems.
func (c *Catalogue) MapReportWith(members []RawField, rules FileRules, now time.Time, opts MapOptions) (*Report, error) {
	var problems []Problem
	add := func(field string, fe *fieldErr) {
		problems = append(problems, Problem{Field: field, Code: fe.code, Message: fe.msg})
	}
	rep := newReport(c)
	seen := make([]bool, len(c.Fields))
	next := 0 // a partner's fields usually come in the catalogue's order: a comparison, not a hash
	for _, m := range members {
		i, ok := next, next < len(c.Fields) && (c.Fields[next].Partner == m.Key || c.Fields[next].Internal == m.Key)
		if !ok {
			i, ok = c.exact[m.Key]
		}
		if !ok {
			i, ok = c.byKey[NormalizeKey(m.Key)]
		}
		if !ok {
			add(Clip(m.Key), bad(CodeUnknownField, "campo desconocido"))
			continue
		}
		f := &c.Fields[i]
		next = i + 1
		if seen[i] {
			add(f.Partner, bad(CodeDuplicateField, "el campo llegó más de una vez (clave \""+Clip(m.Key)+"\")"))
			continue
		}
		seen[i] = true
		if f.Type == TypeFile {
			if m.Value.Kind == RawNull {
				continue
			}
			file, fe := parseFile(m.Value, rules, opts.Stop)
			if fe != nil && fe.code == CodeFileCheckStopped {
				return nil, NewError(ErrUnavailable, CodeFileCheckStopped, fe.msg)
			}
			if fe != nil {
				add(f.Partner, fe)
				continue
			}
			rep.File = file
			continue
		}
		value := nfcField(f, m.Value)
		if opts.DecimalsAsStrings && value.Kind == RawNumber && (f.Type == TypeMoney || f.Type == TypeRate) {
			add(f.Partner, bad(CodeNumberNotAllowed, "debe enviarse como texto, p. ej. \""+exampleDecimal(f.Type)+"\": un número JSON pudo haber perdido decimales"))
			continue
		}
		if opts.DecimalsAsStrings && value.Kind == RawString && strings.TrimSpace(value.Text) != "" &&
			(f.Type == TypeMoney || f.Type == TypeRate) && !CanonicalDecimal(value.Text, f) {
			add(f.Partner, bad(CodeInvalidFormat, "escriba el número sin signo, espacios ni ceros a la izquierda y con hasta "+
				strconv.Itoa(scaleOf(f))+" decimales, p. ej. \""+exampleDecimal(f.Type)+"\""))
			continue
		}
		v, present, fe := parseValue(f, value)
		if fe != nil {
			add(f.Partner, fe)
			continue
		}
		if present {
			rep.put(i, v)
		}
	}
	for i := range c.Fields {
		f, present := &c.Fields[i], rep.set[i]
		if f.Required && !present && (!seen[i] || !hasProblem(problems, f.Partner)) {
			add(f.Partner, bad(CodeRequired, "campo obligatorio"))
		}
	}
	problems = append(problems, c.crossChecks(rep, now)...)
	if len(problems) > 0 {
		err := InvalidReport(problems)
		for _, p := range problems {
			if p.Code == CodeFileTooLarge {
				err.Kind = ErrTooLarge
			}
		}
		return nil, err
	}
	return rep, nil
}

func exampleDecimal(t FieldType) string {
	if t == TypeRate {
		return "1.8500"
	}
	return "14334900.00"
}

func hasProblem(ps []Problem, field string) bool {
	for _, p := range ps {
		if p.Field == field {
			return true
		}
	}
	return false
}

// idDigitsOnly tells, for each identification type, whether its numbers
// are digits only (true) or letters and digits (false). A type missing here
// has no rule, so the catalogue refuses it.
var idDigitsOnly = map[string]bool{
	"CC": true, "CE": true, "TI": true, "RC": true, "NIT": true, "NUIP": true,
	"PA": false, "PEP": false, "PPT": false,
}

// crossChecks applies the rules that relate two fields, each only when both
// values are present and valid.
func (c *Catalogue) crossChecks(rep *Report, now time.Time) []Problem {
	var out []Problem
	partner := func(internal string) string {
		f, _ := c.ByInternal(internal)
		return f.Partner
	}
	today := time.Date(now.UTC().Year(), now.UTC().Month(), now.UTC().Day(), 0, 0, 0, 0, time.UTC)
	for i := range c.Fields {
		v, ok := rep.At(i)
		if !ok {
			continue
		}
		f := &c.Fields[i]
		if f.KindField != "" {
			if kind, ok := rep.Get(f.KindField); ok && idDigitsOnly[kind.Str] && !allDigits(v.Str) {
				out = append(out, Problem{Field: f.Partner, Code: CodeInvalidFormat,
					Message: "para tipo " + kind.Str + " la identificación lleva solo dígitos"})
			}
		}
		if f.LessEq != "" {
			if o, ok := rep.Get(f.LessEq); ok && v.Dec.Cmp(o.Dec) > 0 {
				out = append(out, Problem{Field: f.Partner, Code: CodeInconsistent,
					Message: "no puede ser mayor que " + partner(f.LessEq) + " (" + o.Dec.String() + ")"})
			}
		}
		if f.NotBefore != "" {
			if o, ok := rep.Get(f.NotBefore); ok && v.Date.Before(o.Date) {
				out = append(out, Problem{Field: f.Partner, Code: CodeInconsistent,
					Message: "no puede ser anterior a " + partner(f.NotBefore) + " (" + o.Date.Format("2006-01-02") + ")"})
			}
		}
		if f.HasAhead && v.Date.After(today.AddDate(0, 0, f.MaxDaysAhead)) {
			out = append(out, Problem{Field: f.Partner, Code: CodeOutOfRange,
				Message: "no puede ser posterior a hoy más " + strconv.Itoa(f.MaxDaysAhead) + " día(s) (UTC)"})
		}
	}
	return out
}

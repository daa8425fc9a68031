package domain

import (
	_ "embed"
	"encoding/csv"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync"
)

// FieldType is the kind of value a field holds.
type FieldType string

// The field types of fields.csv.
const (
	TypeString         FieldType = "string"
	TypeEnum           FieldType = "enum"
	TypeNIT            FieldType = "nit"
	TypeIdentification FieldType = "identification"
	TypeDate           FieldType = "date"
	TypeDANE           FieldType = "dane"
	TypeInteger        FieldType = "integer"
	TypePhone          FieldType = "phone"
	TypeEmail          FieldType = "email"
	TypeBoolean        FieldType = "boolean"
	TypeMoney          FieldType = "money"
	TypeRate           FieldType = "rate"
	TypeCreditNumber   FieldType = "credit_number"
	TypeFile           FieldType = "file"
)

// Field is one of the partner's report fields with its rules.
type Field struct {
	N        int
	Partner  string // name as the partner sends it
	Internal string // name in the staging table
	Type     FieldType
	Required bool
	Group    string
	Raw      string // the constraint text as written in fields.csv

	Max  int      // string/email: maximum length in characters
	Enum []string // enum: allowed values, upper case
	// RangeMin and RangeMax bound, inclusive, an integer's value, a
	// phone's digit count, a credit number's length and a rate's value in
	// whole percent.
	RangeMin, RangeMax int64
	// Digits is a DANE code's exact digit count.
	Digits int
	// Decimals is the most fraction digits a rate may have.
	Decimals int
	// KindField names (internally) the enum field whose value decides which
	// characters an identification may hold.
	KindField string
	Positive  bool // money: > 0 instead of >= 0
	// LessEq names (internally) a field this money field may not exceed.
	LessEq string
	// NotBefore names (internally) a date this date may not precede.
	NotBefore string
	// MaxDaysAhead: a date may be at most this many days after today (UTC).
	MaxDaysAhead int
	HasAhead     bool
}

// Catalogue is the ordered set of report fields.
type Catalogue struct {
	Fields  []Field
	byKey   map[string]int // normalised partner and internal names → index
	exact   map[string]int // the partner and internal names as written (no normalising needed)
	byInter map[string]int
}

//go:embed fields.csv
var fieldsCSV string

var (
	defaultOnce sync.Once
	defaultCat  *Catalogue
)

// DefaultCatalogue returns the catalogue compiled into the binary. The
// embedded file is checked by tests, so a failure here is a build defect.
func DefaultCatalogue() *Catalogue {
	defaultOnce.Do(func() {
		c, err := LoadCatalogue(strings.NewReader(fieldsCSV))
		if err != nil {
			panic("domain: embedded fields.csv: " + err.Error())
		}
		defaultCat = c
	})
	return defaultCat
}

// FieldsCSV returns the embedded catalogue file as shipped.
func FieldsCSV() string { return fieldsCSV }

// LoadCatalogue reads a fields.csv. Every constraint must be understood:
// a rule that the code cannot enforce is an error, not a silent pass.
func LoadCatalogue(r io.Reader) (*Catalogue, error) {
	rows, err := csv.NewReader(r).ReadAll()
	if err != nil {
		return nil, fmt.Errorf("read fields: %w", err)
	}
	if len(rows) < 2 {
		return nil, fmt.Errorf("read fields: no rows")
	}
	want := []string{"n", "partner_name", "internal_name", "type", "required", "constraints", "group"}
	if strings.Join(rows[0], ",") != strings.Join(want, ",") {
		return nil, fmt.Errorf("read fields: header %q, want %q", rows[0], want)
	}
	c := &Catalogue{byKey: map[string]int{}, exact: map[string]int{}, byInter: map[string]int{}}
	for i, row := range rows[1:] {
		f, err := parseField(row)
		if err != nil {
			return nil, fmt.Errorf("fields.csv line %d: %w", i+2, err)
		}
		idx := len(c.Fields)
		for _, k := range []string{NormalizeKey(f.Partner), NormalizeKey(f.Internal)} {
			if j, dup := c.byKey[k]; dup && j != idx {
				return nil, fmt.Errorf("fields.csv line %d: key %q collides with %q", i+2, k, c.Fields[j].Partner)
			}
			c.byKey[k] = idx
		}
		c.byInter[f.Internal] = idx
		c.exact[f.Partner], c.exact[f.Internal] = idx, idx
		c.Fields = append(c.Fields, f)
	}
	for _, f := range c.Fields {
		if f.KindField != "" {
			if err := c.checkKindField(f); err != nil {
				return nil, err
			}
		}
		for _, ref := range []string{f.LessEq, f.NotBefore} {
			if ref != "" {
				if _, ok := c.byInter[ref]; !ok {
					return nil, fmt.Errorf("field %s refers to unknown field %q", f.Internal, ref)
				}
			}
		}
	}
	return c, nil
}

// Lookup finds the field for a key as the partner sent it.
func (c *Catalogue) Lookup(key string) (Field, bool) {
	i, ok := c.byKey[NormalizeKey(key)]
	if !ok {
		return Field{}, false
	}
	return c.Fields[i], true
}

// ByInternal finds a field by its internal name.
func (c *Catalogue) ByInternal(name string) (Field, bool) {
	i, ok := c.byInter[name]
	if !ok {
		return Field{}, false
	}
	return c.Fields[i], true
}

func parseField(row []string) (Field, error) {
	if len(row) != 7 {
		return Field{}, fmt.Errorf("%d columns, want 7", len(row))
	}
	n, err := strconv.Atoi(row[0])
	if err != nil {
		return Field{}, fmt.Errorf("n: %w", err)
	}
	f := Field{N: n, Partner: strings.TrimSpace(row[1]), Internal: strings.TrimSpace(row[2]),
		Type: FieldType(row[3]), Group: row[6], Raw: row[5]}
	switch row[4] {
	case "yes":
		f.Required = true
	case "no":
	default:
		return Field{}, fmt.Errorf("required %q, want yes or no", row[4])
	}
	if err := f.parseConstraints(); err != nil {
		return Field{}, fmt.Errorf("%s: %w", f.Internal, err)
	}
	return f, nil
}

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

// checkKindField checks that an identification's type field is an enum whose
// every value is an identification type the rules know.
func (c *Catalogue) checkKindField(f Field) error {
	i, ok := c.byInter[f.KindField]
	if !ok || c.Fields[i].Type != TypeEnum {
		return fmt.Errorf("field %s: %q is no enum field", f.Internal, f.KindField)
	}
	for _, v := range c.Fields[i].Enum {
		if _, known := idDigitsOnly[v]; !known {
			return fmt.Errorf("field %s: identification type %q has no rule", f.Internal, v)
		}
	}
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

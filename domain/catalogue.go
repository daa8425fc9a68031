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

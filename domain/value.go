package domain

import (
	"iter"
	"time"
)

// RawKind is the JSON kind of a value as it arrived.
type RawKind int

// The JSON kinds a decoder reports.
const (
	RawNull RawKind = iota
	RawString
	RawNumber
	RawBool
	RawObject
	RawArray
)

func (k RawKind) String() string {
	return [...]string{"null", "texto", "número", "booleano", "objeto", "lista"}[k]
}

// RawField is one member of a JSON object, in the order it arrived.
type RawField struct {
	Key   string
	Value RawValue
}

// RawValue is a JSON value before it is interpreted. Text holds a string's
// content or a number's literal exactly as written.
type RawValue struct {
	Kind    RawKind
	Text    string
	Bool    bool
	Members []RawField // RawObject only
}

// Value is a field's interpreted, typed value. Which member is set follows
// the field's type: Str for text-like types, Dec for money and rates, Int
// for integers, Bool for booleans, Date for dates.
type Value struct {
	Str  string
	Dec  Decimal
	Int  int64
	Bool bool
	Date time.Time // midnight UTC
}

// Report is a validated disbursement report: the values present, in the
// order of its catalogue's fields, and the attached file if any.
type Report struct {
	cat    *Catalogue
	values []Value // by field index
	set    []bool  // which values are present
	File   *File
}

func newReport(c *Catalogue) *Report {
	return &Report{cat: c, values: make([]Value, len(c.Fields)), set: make([]bool, len(c.Fields))}
}

// At returns the value of the catalogue's i-th field and whether it is
// present.
func (r *Report) At(i int) (Value, bool) { return r.values[i], r.set[i] }

// Get returns the value of the field of that internal name and whether
// it is present.
func (r *Report) Get(internal string) (Value, bool) {
	i, ok := r.cat.byInter[internal]
	if !ok {
		return Value{}, false
	}
	return r.values[i], r.set[i]
}

// Values yields each present field with its value, in the catalogue's
// order.
func (r *Report) Values() iter.Seq2[Field, Value] {
	return func(yield func(Field, Value) bool) {
		for i, ok := range r.set {
			if ok && !yield(r.cat.Fields[i], r.values[i]) {
				return
			}
		}
	}
}

// Len returns how many values are present.
func (r *Report) Len() int {
	n := 0
	for _, ok := range r.set {
		if ok {
			n++
		}
	}
	return n
}

func (r *Report) put(i int, v Value) { r.values[i], r.set[i] = v, true }

// Text returns the text value of a field, or "".
func (r *Report) Text(internal string) string {
	v, _ := r.Get(internal)
	return v.Str
}

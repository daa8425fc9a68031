package domain

import "time"

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

// Report is a validated disbursement report: the values present, keyed by
// internal name, and the attached file if any.
type Report struct {
	Values map[string]Value
	File   *File
}

// String returns the text value of a field, or "".
func (r *Report) String(internal string) string { return r.Values[internal].Str }

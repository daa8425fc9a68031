package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// StoredKind is how the store keeps a field's value: as text, or as a
// number for integers and booleans.
type StoredKind uint8

// The stored kinds.
const (
	StoredText    StoredKind = iota // decimals, dates and text
	StoredInteger                   // an integer
	StoredBoolean                   // 1 or 0
)

// Stored is a field's value in its stored form. Its Kind is the only
// thing a reader (a store, an encoder, a screen) asks about the field's
// type.
type Stored struct {
	Kind StoredKind
	Int  int64 // StoredInteger's integer; StoredBoolean's 1 or 0
	text string
}

// StoredOf is the one place a field's type decides its stored form:
// decimals as written at their scale, dates as YYYY-MM-DD, integers,
// booleans as 1 or 0, text as validated (the text is AppendStored's).
func StoredOf(f Field, v Value) Stored {
	switch StoredKindOf(f.Type) {
	case StoredInteger:
		return Stored{Kind: StoredInteger, Int: v.Int}
	case StoredBoolean:
		if v.Bool {
			return Stored{Kind: StoredBoolean, Int: 1}
		}
		return Stored{Kind: StoredBoolean}
	}
	switch f.Type {
	case TypeMoney, TypeRate, TypeDate:
		var b [32]byte
		return Stored{text: string(AppendStored(b[:0], &f, v))}
	}
	return Stored{text: v.Str}
}

// StoredKindOf is how a field of type t is stored.
func StoredKindOf(t FieldType) StoredKind {
	switch t {
	case TypeInteger:
		return StoredInteger
	case TypeBoolean:
		return StoredBoolean
	}
	return StoredText
}

// AppendStored appends the text of StoredOf(f, v) (its Text) to b:
// decimals as written at their scale, dates as YYYY-MM-DD, numbers in
// decimal, text as validated. It lets a caller write many fields' stored
// text into one buffer (Identity, the store's statement).
func AppendStored(b []byte, f *Field, v Value) []byte {
	switch f.Type {
	case TypeMoney, TypeRate:
		return v.Dec.appendTo(b)
	case TypeDate:
		return v.Date.AppendFormat(b, "2006-01-02")
	}
	switch StoredKindOf(f.Type) {
	case StoredInteger:
		return strconv.AppendInt(b, v.Int, 10)
	case StoredBoolean:
		if v.Bool {
			return append(b, '1')
		}
		return append(b, '0')
	}
	return append(b, v.Str...)
}

// Text is the stored form as the staging table's text keeps it: numbers
// in decimal (a boolean as 1 or 0).
func (s Stored) Text() string {
	if s.Kind == StoredText {
		return s.text
	}
	return strconv.FormatInt(s.Int, 10)
}

// Bool is a StoredBoolean's value.
func (s Stored) Bool() bool { return s.Int == 1 }

// StoredForm is the text of a field's value as the staging table keeps
// it (StoredOf's Text).
func StoredForm(f Field, v Value) string { return StoredOf(f, v).Text() }

// StoredValue is StoredForm as a statement parameter: integers and
// booleans stay numbers (int64), everything else is StoredForm's text.
func StoredValue(f Field, v Value) any {
	s := StoredOf(f, v)
	if s.Kind == StoredText {
		return s.text
	}
	return s.Int
}

// Identity returns the hex SHA-256 of the canonical report (contract §4,
// §7): every present field in catalogue order, by internal name, in its
// stored form, then the file's SHA-256. Two bodies that differ only in
// whitespace, key order, key spelling or in a number written as a string
// have the same identity; any difference in what would be stored does not.
func (c *Catalogue) Identity(r *Report) string {
	// One buffer hashed once: the same bytes as a Write a field, at a
	// fraction of the cost (every report pays it).
	var stack [4096]byte
	buf := stack[:0]
	var valStack [256]byte
	val := valStack[:0]
	for i := range c.Fields {
		v, ok := r.At(i)
		if !ok {
			continue
		}
		f := &c.Fields[i]
		// Length-prefixed, so no value can pass for a field boundary.
		val = AppendStored(val[:0], f, v)
		buf = append(buf, f.Internal...)
		buf = append(buf, '=')
		buf = strconv.AppendInt(buf, int64(len(val)), 10)
		buf = append(buf, ':')
		buf = append(buf, val...)
		buf = append(buf, '\n')
	}
	if r.File != nil {
		buf = append(buf, "file="...)
		buf = append(buf, r.File.SHA256[:]...)
	}
	sum := sha256.Sum256(buf)
	return hex.EncodeToString(sum[:])
}

// KeyHash is the stored form of a submission's idempotency key, scoped so
// that a header key and a report identity never match each other.
func KeyHash(idempotencyKey, identity string) string {
	var h [32]byte
	if idempotencyKey != "" {
		h = sha256.Sum256([]byte("key:" + idempotencyKey))
	} else {
		h = sha256.Sum256([]byte("report:" + identity))
	}
	return hex.EncodeToString(h[:])
}

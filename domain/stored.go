package domain

import (
	"errors"
	"fmt"
	"strconv"
	"time"
)

// ValueFromStored reads a staging column back into its field's typed
// value: the inverse of StoredValue, and the one place a stored report is
// read back. stored is what a store returned for the column: nil (NULL,
// the field is absent), StoredForm's text as a string or []byte, an int64
// (integers, and booleans as 1 or 0), or a time.Time (a date, from a
// database that types its date columns). It returns false for an absent
// field, and an error for anything StoredValue never writes: a stored row
// that reads differently from what was validated is a fault, not data.
func ValueFromStored(f Field, stored any) (Value, bool, error) {
	var text string
	switch x := stored.(type) {
	case nil:
		return Value{}, false, nil
	case string:
		text = x
	case []byte:
		text = string(x)
	case int64:
		return intFromStored(f, x)
	case time.Time:
		if f.Type != TypeDate {
			return Value{}, false, fmt.Errorf("%s: a time stored for a %s field", f.Internal, f.Type)
		}
		return Value{Date: time.Date(x.Year(), x.Month(), x.Day(), 0, 0, 0, 0, time.UTC)}, true, nil
	default:
		return Value{}, false, fmt.Errorf("%s: a %T stored for a %s field", f.Internal, stored, f.Type)
	}
	var v Value
	var err error
	switch f.Type {
	case TypeMoney:
		v.Dec, err = ParseDecimal(text, moneyPrec, moneyScl)
	case TypeRate:
		v.Dec, err = ParseDecimal(text, ratePrec, rateScl)
	case TypeDate:
		v.Date, err = isoDate(text)
	case TypeInteger, TypeBoolean:
		var n int64
		if n, err = strconv.ParseInt(text, 10, 64); err == nil {
			return intFromStored(f, n)
		}
	case TypeFile:
		err = errors.New("the file is not a column")
	default:
		v.Str = text
	}
	if err != nil {
		return Value{}, false, fmt.Errorf("%s: stored %q does not read as a %s: %w", f.Internal, Clip(text), f.Type, err)
	}
	return v, true, nil
}

func intFromStored(f Field, n int64) (Value, bool, error) {
	switch {
	case f.Type == TypeInteger:
		return Value{Int: n}, true, nil
	case f.Type == TypeBoolean && (n == 0 || n == 1):
		return Value{Bool: n == 1}, true, nil
	}
	return Value{}, false, fmt.Errorf("%s: the number %d stored for a %s field", f.Internal, n, f.Type)
}

// RestoreReport rebuilds a stored report from its row: column returns
// what the store holds for the catalogue's i-th field (see
// ValueFromStored). The file is not among the fields (the row's metadata
// names it).
func (c *Catalogue) RestoreReport(column func(i int, f Field) any) (*Report, error) {
	rep := newReport(c)
	for i, f := range c.Fields {
		if f.Type == TypeFile {
			continue
		}
		v, ok, err := ValueFromStored(f, column(i, f))
		if err != nil {
			return nil, fmt.Errorf("restore report: %w", err)
		}
		if ok {
			rep.put(i, v)
		}
	}
	return rep, nil
}

package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
)

// StoredForm is the text of a field's value as the staging table keeps
// it: decimals as written at their scale, dates as YYYY-MM-DD, integers in
// decimal, booleans as 1 or 0, text as validated.
func StoredForm(f Field, v Value) string {
	switch f.Type {
	case TypeMoney, TypeRate:
		return v.Dec.String()
	case TypeDate:
		return v.Date.Format("2006-01-02")
	case TypeInteger:
		return strconv.FormatInt(v.Int, 10)
	case TypeBoolean:
		if v.Bool {
			return "1"
		}
		return "0"
	}
	return v.Str
}

// StoredValue is StoredForm as a statement parameter: integers and
// booleans stay numbers, everything else is StoredForm's text.
func StoredValue(f Field, v Value) any {
	switch f.Type {
	case TypeInteger:
		return v.Int
	case TypeBoolean:
		if v.Bool {
			return int64(1)
		}
		return int64(0)
	}
	return StoredForm(f, v)
}

// Identity returns the hex SHA-256 of the canonical report (contract §4,
// §7): every present field in catalogue order, by internal name, in its
// stored form, then the file's SHA-256. Two bodies that differ only in
// whitespace, key order, key spelling or in a number written as a string
// have the same identity; any difference in what would be stored does not.
func (c *Catalogue) Identity(r *Report) string {
	h := sha256.New()
	var buf []byte
	for i, f := range c.Fields {
		v, ok := r.At(i)
		if !ok {
			continue
		}
		// Length-prefixed, so no value can pass for a field boundary.
		s := StoredForm(f, v)
		buf = append(buf[:0], f.Internal...)
		buf = append(buf, '=')
		buf = strconv.AppendInt(buf, int64(len(s)), 10)
		buf = append(buf, ':')
		buf = append(buf, s...)
		buf = append(buf, '\n')
		h.Write(buf)
	}
	if r.File != nil {
		h.Write([]byte("file="))
		h.Write(r.File.SHA256[:])
	}
	return hex.EncodeToString(h.Sum(nil))
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

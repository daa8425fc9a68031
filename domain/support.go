package domain

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// The rules of what support tools and logs may show of what a partner
// sent: a text that may hold a secret or an identification number (an
// Idempotency-Key, a key that is no field) is shown as a prefix of its
// hash; identification numbers are shown masked.

// HashPrefix is the first 12 hex digits of the SHA-256 of s: how logs and
// support tools name a text they must not show (an Idempotency-Key may
// hold a credit or identification number). Anyone who has the text
// computes it: printf '%s' TEXT | sha256sum | cut -c1-12. It hides a text
// of little entropy (a bare identification number) from a reader, not
// from a search of every candidate.
func HashPrefix(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:6])
}

// HashRef is how a log line names, among other values, a text it must not
// show (a user name that may be a password, a token without a jti, a key
// that is no field): "sha256:" and its HashPrefix.
func HashRef(s string) string { return "sha256:" + HashPrefix(s) }

// ProblemName is how a log names the field of a problem: the partner's
// field name, or, for a key that is no field (which may be a value sent
// in a key's place), its HashRef.
func ProblemName(p Problem) string {
	if p.Code == CodeUnknownField {
		return HashRef(p.Field)
	}
	return p.Field
}

// IsIdentification reports whether a field holds an identification
// number (a person's document, or a NIT), which support tools show
// masked.
func (f Field) IsIdentification() bool {
	return f.Type == TypeIdentification || f.Type == TypeNIT
}

// MaskIdentification shows an identification number with every character
// but a few at its ends replaced by '*': at most 2 at each end, and none
// of a number shorter than 5 (1020304050 → 10******50, 12345 → 1***5).
// The length stays, so support can tell a short number from a long one.
func MaskIdentification(s string) string {
	r := []rune(s)
	n := len(r)
	keep := min(2, n/5)
	return string(r[:keep]) + strings.Repeat("*", n-2*keep) + string(r[n-keep:])
}

// ReportRecord is a stored report's receipt and what the staging table
// keeps beside it: what support sees of a report, whoever sent it.
type ReportRecord struct {
	StoredReceipt
	PartnerUser string
	PartnerNIT  string // from the token; "" when it had none
	RequestID   string // the X-Request-Id of the request that stored it
	FileSize    int64
	FileSHA256  string // hex; "" without a file
}

// RecordedReport is a ReportRecord and the report's fields.
type RecordedReport struct {
	ReportRecord
	Report *Report
}

// ShownField is a stored field as support tools show it.
type ShownField struct {
	Field Field
	Text  string // StoredForm; masked for identification numbers, true or false for booleans
}

// ShownFields lists the report's present fields in the catalogue's order,
// each in its stored form (booleans as true or false, as /v1 shows them),
// identification numbers masked.
func ShownFields(r *Report) []ShownField {
	out := make([]ShownField, 0, r.Len())
	for f, v := range r.Values() {
		s := StoredOf(f, v)
		text := s.Text()
		switch {
		case f.IsIdentification():
			text = MaskIdentification(text)
		case s.Kind == StoredBoolean:
			text = strconv.FormatBool(s.Bool())
		}
		out = append(out, ShownField{Field: f, Text: text})
	}
	return out
}

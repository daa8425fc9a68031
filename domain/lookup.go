package domain

import (
	"strings"
	"time"
)

// StoredReceipt is what the store kept of a report, as its receipt shows
// it to the partner that sent it.
type StoredReceipt struct {
	ID             int64
	CreditNumber   string
	FileName       string    // "" when the report came without a file
	ReceivedAt     time.Time // UTC, to the millisecond
	IdempotencyKey string    // the Idempotency-Key header, "" when none was sent
	// Status is the report's state; a report stored before decisions
	// existed is received. Decision is the lender's decision once Status
	// is accepted or rejected, zero before (contract §11).
	Status   ReportStatus
	Decision Decision
}

// ReceiptTime is a receipt time as every answer and command shows it:
// RFC 3339, UTC, to the millisecond (contract §8).
func ReceiptTime(t time.Time) string { return t.UTC().Format("2006-01-02T15:04:05.000Z") }

// StoredReport is a stored report: its receipt and its fields.
type StoredReport struct {
	StoredReceipt
	Report *Report
}

// MsgNotFound is the message of a report that is not the partner's, or
// not there: the answer never tells which.
const MsgNotFound = "Reporte no encontrado"

// MsgLookupFailed is the message of a look-up the store could not answer.
const MsgLookupFailed = "No se pudo consultar los reportes; reintente en un momento"

// InvalidParameter is the error of a look-up parameter the partner got
// wrong: code invalid_request, naming the parameter (in Detail too, for
// machines).
func InvalidParameter(name, why string) *Error {
	return &Error{Kind: ErrInvalidInput, Code: "invalid_request", Message: "Parámetro " + name + " inválido: " + why, Detail: name}
}

// ParseInstant reads a bound of a look-up: an RFC 3339 date-time, or a
// date YYYY-MM-DD meaning 00:00 UTC of that day. The result is in UTC.
func ParseInstant(s string) (time.Time, bool) {
	var t time.Time
	var err error
	if len(s) == 10 {
		t, err = isoDate(s)
	} else {
		// RFC 3339 allows "t" and "z" in lower case; Go's layout does not.
		t, err = time.Parse(time.RFC3339Nano, strings.ToUpper(s))
	}
	if err != nil || t.Year() < minYear || t.Year() > maxYear {
		return time.Time{}, false
	}
	return t.UTC(), true
}

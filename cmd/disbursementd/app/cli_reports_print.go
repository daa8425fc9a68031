package app

import (
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// orDash is s, or "-" for an empty column.
func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// printRecords writes the list's table: one report a line, newest first.
func printRecords(w io.Writer, records []ports.SupportRecord) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tRECEIVED_AT\tPARTNER\tNUMERO_CREDITO\tFILE\tKEY_SHA256\tREQUEST_ID")
	for _, r := range records {
		fmt.Fprintf(tw, "%d\t%s\t%s\t%s\t%s\t%s\t%s\n", r.ID, domain.ReceiptTime(r.ReceivedAt), r.PartnerUser, r.CreditNumber,
			orDash(r.FileName), orDash(r.KeyHash), orDash(r.RequestID))
	}
	_ = tw.Flush()
}

// fileLine is what show says of a report's file.
func fileLine(r ports.SupportReport) string {
	switch r.File {
	case ports.FileNone:
		return "none (the report came without a file)"
	case ports.FilePresent:
		return r.FileName + ": present (" + strconv.FormatInt(r.FileSize, 10) + " bytes, sha256 " + orDash(r.FileSHA256) + ")"
	case ports.FileMissing:
		return r.FileName + ": MISSING from the upload store (the row names it; see reconcile in the operator guide)"
	}
	return r.FileName + ": unknown (the upload store did not answer)"
}

// printReport writes show's answer: the receipt and what the row keeps
// beside it, then every stored field by its partner name (and internal
// name), identification numbers masked.
func printReport(w io.Writer, r ports.SupportReport) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	key := "none"
	if r.KeyHash != "" {
		key = "sha256 " + r.KeyHash + " (first 12 hex digits)"
	}
	for _, line := range [][2]string{
		{"id", strconv.FormatInt(r.ID, 10)},
		{"received_at", domain.ReceiptTime(r.ReceivedAt)},
		{"partner", r.PartnerUser},
		{"partner_nit", orDash(r.PartnerNIT)},
		{"numero_credito", r.CreditNumber},
		{"request_id", orDash(r.RequestID)},
		{"idempotency_key", key},
		{"file", fileLine(r)},
		{"status", orDash(string(r.Status))},
		{"decision", decisionLine(r.SupportRecord)},
	} {
		fmt.Fprintf(tw, "%s\t%s\n", line[0], line[1])
	}
	_ = tw.Flush()
	fmt.Fprintf(w, "fields (%d stored):\n", len(r.Fields))
	tw = tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	for _, f := range r.Fields {
		fmt.Fprintf(tw, "  %s\t%s\t%s\n", f.Field.Partner, f.Field.Internal, f.Text)
	}
	_ = tw.Flush()
}

// decisionLine is what show says of a report's decision: who made it and
// when, and for a rejection its code and reason (contract §11).
func decisionLine(r ports.SupportRecord) string {
	if !r.Status.Decided() {
		return "none yet"
	}
	d := r.Decision
	line := string(d.Status) + " by " + orDash(d.By) + " at " + domain.ReceiptTime(d.At)
	if d.Status == domain.StatusRejected {
		line += ": " + d.ReasonCode + ": " + strconv.Quote(d.Reason)
	}
	return line
}

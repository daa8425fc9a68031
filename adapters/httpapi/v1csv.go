package httpapi

import (
	"bufio"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// csvContentType is the CSV export's media type (RFC 4180, RFC 7111's
// header parameter): UTF-8, a header row first.
const csvContentType = "text/csv; charset=utf-8; header=present"

// csvReceiptColumns are the export's first columns, named as the JSON
// receipt's members; the catalogue's partner names follow.
var csvReceiptColumns = []string{"id", "status", "received_at", "decided_at", "reason_code", "reason", "file", "idempotency_key"}

// csvFlushEvery is how many rows go out between flushes: the export is
// written as it is encoded, never held whole.
const csvFlushEvery = 25

// plainNumber is a cell a spreadsheet reads as a number, never as a
// formula, whatever its sign: the stored form of money, rates and
// integers.
var plainNumber = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?$`)

// writeCSV writes a page as the CSV export: the header row, then a row
// per report, each cell in its stored form (money and rates as the
// stored strings), absent fields empty. The next page's cursor goes in
// the Next-Cursor header and in a Link rel="next" to the same query with
// that cursor (RFC 8288), before the body.
func writeCSV(w http.ResponseWriter, r *http.Request, page ports.Page) {
	h := w.Header()
	h.Set("Content-Type", csvContentType)
	if page.NextCursor != "" {
		h.Set("Next-Cursor", page.NextCursor)
		h.Set("Link", "<"+nextPageURL(r.URL, page.NextCursor)+`>; rel="next"`)
	}
	// Always 200: the header row is the first write (the status goes
	// with it), and every failure was answered before this point.
	cat := domain.DefaultCatalogue()
	bw := bufio.NewWriter(w)
	row := append([]string{}, csvReceiptColumns...)
	for _, f := range cat.Fields {
		row = append(row, f.Partner)
	}
	writeCSVRow(bw, row)
	rc := http.NewResponseController(w)
	for i, rec := range page.Receipts {
		writeCSVRow(bw, csvRow(row[:0], rec, page.Reports[i], cat))
		if (i+1)%csvFlushEvery == 0 {
			if bw.Flush() != nil {
				return // the client left; nothing more to send
			}
			_ = rc.Flush()
		}
	}
	_ = bw.Flush()
}

// csvRow is a report's cells: its receipt's, then each of cat's fields'
// stored form, "" when absent.
func csvRow(row []string, rec domain.StoredReceipt, rep *domain.Report, cat *domain.Catalogue) []string {
	j := receiptOf(rec)
	row = append(row, strconv.FormatInt(j.ID, 10), j.Status, j.ReceivedAt, j.DecidedAt, j.ReasonCode, j.Reason,
		rec.FileName, rec.IdempotencyKey)
	for i, f := range cat.Fields {
		v, ok := rep.At(i)
		if !ok {
			row = append(row, "")
			continue
		}
		s := domain.StoredOf(f, v)
		switch s.Kind {
		case domain.StoredInteger:
			row = append(row, strconv.FormatInt(s.Int, 10))
		case domain.StoredBoolean:
			row = append(row, strconv.FormatBool(s.Bool()))
		default:
			row = append(row, s.Text())
		}
	}
	return row
}

// writeCSVRow writes cells as one RFC 4180 record, ended by CRLF: every
// cell quoted, each " doubled (so commas, quotes and line breaks inside
// a cell stay in it), and made inert as OWASP's CSV injection advice
// says (inertCell).
func writeCSVRow(w *bufio.Writer, cells []string) {
	for i, c := range cells {
		if i > 0 {
			_ = w.WriteByte(',')
		}
		_ = w.WriteByte('"')
		_, _ = w.WriteString(strings.ReplaceAll(inertCell(c), `"`, `""`))
		_ = w.WriteByte('"')
	}
	_, _ = w.WriteString("\r\n")
}

// inertCell is c as a spreadsheet cannot run it: a cell that starts with
// = + - @, a tab or a carriage return (a formula, or DDE) gets a leading
// single quote (OWASP, "CSV Injection"), unless the whole cell is a plain
// number (a negative amount is data, and "-1.00" runs nothing).
func inertCell(c string) string {
	if c == "" || !strings.ContainsRune("=+-@\t\r", rune(c[0])) || plainNumber.MatchString(c) {
		return c
	}
	return "'" + c
}

// nextPageURL is the path and query of u with its cursor set to cursor
// (the other parameters as sent).
func nextPageURL(u *url.URL, cursor string) string {
	q := u.Query()
	q.Set("cursor", cursor)
	return u.Path + "?" + q.Encode()
}

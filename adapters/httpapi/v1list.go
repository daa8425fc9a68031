package httpapi

import (
	"encoding/json"
	"net/http"
	"strings"
	"sync"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// listParams are the query parameters of GET /v1/reports; any other is
// refused by name (a misspelt filter must not list every report as if it
// had matched).
var listParams = queryRules{known: []string{"numero_credito", "idempotency_key", "received_from", "received_to", "status", "limit", "cursor", "include"}}

// listedJSON is a receipt of the list, with its report's fields when
// asked (include=fields), as GET /v1/reports/{id} shows them.
type listedJSON struct {
	receiptJSON
	Fields json.RawMessage `json:"fields,omitempty"`
}

// handleV1List is GET /v1/reports: a page of the partner's receipts, in
// JSON (with their fields when include=fields) or, when Accept prefers
// text/csv, as the CSV export (writeCSV), which always has the fields.
func (s *Server) handleV1List(w http.ResponseWriter, r *http.Request) {
	p, ctx, done, ok := s.startLookup(w, r)
	if !ok {
		return
	}
	// The slot covers the store's work, not the client's reading of the
	// answer: it is given back before the page is written.
	release := sync.OnceFunc(done)
	defer release()
	media := negotiate(r.Header.Values("Accept"), mediaJSON, mediaCSV)
	if media == "" {
		s.v1Error(w, r, domain.NewError(errNotAcceptable, "not_acceptable",
			"Esta ruta responde application/json o text/csv; ninguno es aceptable según Accept"))
		return
	}
	q, err := listQuery(r.URL.RawQuery)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	q.User = p.User
	q.Fields = q.Fields || media == mediaCSV
	page, err := s.Lookup.List(ctx, q)
	release()
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	if media == mediaCSV {
		writeCSV(w, r, page)
		return
	}
	out := struct {
		Data       []listedJSON `json:"data"`
		NextCursor *string      `json:"next_cursor"`
	}{Data: make([]listedJSON, len(page.Receipts))}
	for i, rc := range page.Receipts {
		out.Data[i].receiptJSON = receiptOf(rc)
		if page.Reports != nil {
			if out.Data[i].Fields, err = fieldsJSON(page.Reports[i]); err != nil {
				s.v1Error(w, r, err)
				return
			}
		}
	}
	if page.NextCursor != "" {
		out.NextCursor = &page.NextCursor
	}
	writeJSON(w, http.StatusOK, out)
}

// listQuery reads the query string of GET /v1/reports (listParams). The
// bounds (limit, the credit number's and key's forms, the status, the
// cursor) are the use case's.
func listQuery(raw string) (ports.ListQuery, error) {
	var q ports.ListQuery
	params, err := listParams.read(raw)
	if err != nil {
		return q, err
	}
	for _, p := range params {
		key, val := p.key, p.val
		switch key {
		case "numero_credito":
			q.CreditNumber = val
		case "idempotency_key":
			q.IdempotencyKey = val
		case "status":
			q.Status = val
		case "cursor":
			q.Cursor = val
		case "include":
			// Only fields can be included; a value this list does not
			// know is refused, not ignored.
			if val != "fields" {
				return q, domain.InvalidParameter(key, "solo fields (include=fields)")
			}
			q.Fields = true
		case "limit":
			if q.Limit, err = pageLimit(val); err != nil {
				return q, err
			}
		case "received_from", "received_to":
			t, ok := domain.ParseInstant(val)
			if _, plus := domain.ParseInstant(strings.ReplaceAll(val, " ", "+")); !ok && plus {
				// An unencoded '+' arrives as a space (form encoding):
				// say so, rather than that the form is wrong (contract §10).
				return q, domain.InvalidParameter(key, "el + del desfase llegó como espacio; codifique + como %2B (2026-11-20T00:00:00%2B01:00)")
			}
			if !ok {
				return q, domain.InvalidParameter(key, "use RFC 3339 (2026-11-20T00:00:00Z) o AAAA-MM-DD")
			}
			if key == "received_from" {
				q.From = t
			} else {
				q.To = t
			}
		}
	}
	return q, nil
}

package httpapi

import (
	"net/http"
	"strings"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// listParams are the query parameters of GET /v1/reports; any other is
// refused by name (a misspelt filter must not list every report as if it
// had matched).
var listParams = queryRules{known: []string{"numero_credito", "idempotency_key", "received_from", "received_to", "status", "limit", "cursor"}}

// handleV1List is GET /v1/reports: a page of the partner's receipts.
func (s *Server) handleV1List(w http.ResponseWriter, r *http.Request) {
	p, ctx, done, ok := s.startLookup(w, r)
	if !ok {
		return
	}
	defer done()
	q, err := listQuery(r.URL.RawQuery)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	q.User = p.User
	page, err := s.Lookup.List(ctx, q)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	out := struct {
		Data       []receiptJSON `json:"data"`
		NextCursor *string       `json:"next_cursor"`
	}{Data: make([]receiptJSON, len(page.Receipts))}
	for i, rc := range page.Receipts {
		out.Data[i] = receiptOf(rc)
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

package httpapi

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// listParams are the query parameters of GET /v1/reports; any other is
// refused by name (a misspelt filter must not list every report as if it
// had matched).
var listParams = map[string]bool{"numero_credito": true, "idempotency_key": true, "received_from": true,
	"received_to": true, "limit": true, "cursor": true}

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

// listQuery reads the query string of GET /v1/reports. Each parameter
// may come once, with a value; one that is unknown, repeated, empty or
// malformed is an invalid_request naming it. The bounds (limit, the
// credit number's and key's forms, the cursor) are the use case's.
func listQuery(raw string) (ports.ListQuery, error) {
	var q ports.ListQuery
	seen := map[string]bool{}
	for raw != "" {
		var pair string
		pair, raw, _ = strings.Cut(raw, "&")
		if pair == "" {
			continue
		}
		k, v, _ := strings.Cut(pair, "=")
		key, err := url.QueryUnescape(k)
		if err != nil {
			return q, domain.InvalidParameter(domain.Clip(k), "nombre mal codificado")
		}
		val, err := url.QueryUnescape(v)
		switch {
		case !listParams[key]:
			return q, domain.InvalidParameter(domain.Clip(key), "parámetro desconocido; use numero_credito, idempotency_key, received_from, received_to, limit o cursor")
		case seen[key]:
			return q, domain.InvalidParameter(key, "llegó más de una vez")
		case err != nil:
			return q, domain.InvalidParameter(key, "valor mal codificado")
		case val == "":
			return q, domain.InvalidParameter(key, "sin valor")
		}
		seen[key] = true
		switch key {
		case "numero_credito":
			q.CreditNumber = val
		case "idempotency_key":
			q.IdempotencyKey = val
		case "cursor":
			q.Cursor = val
		case "limit":
			if q.Limit, err = strconv.Atoi(val); err != nil || q.Limit == 0 {
				return q, domain.InvalidParameter(key, domain.PageLimitBound.Es)
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

package httpapi

import (
	"net/http"
	"strings"

	"github.com/go-chi/chi/v5"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// eventRoutes registers the routes of contract §11 that partners call:
// their events and their webhook endpoints. Each is a look-up as §10
// bounds them (startLookup: the partner's look-up rate, then a look-up
// slot, and the look-up timeout), whether it reads or writes: none holds
// a report's capacity.
func (s *Server) eventRoutes(rt *routes) {
	rt.handle(http.MethodGet, "/v1/events", s.handleV1Events)
	rt.handle(http.MethodGet, "/v1/events/{id}", noParams(s.handleV1Event, s.v1Error))
	rt.handle(http.MethodPost, "/v1/events/{id}/redeliver", noParams(s.handleV1Redeliver, s.v1Error))
	rt.handle(http.MethodPost, "/v1/webhook_endpoints", noParams(s.handleEndpointCreate, s.v1Error))
	rt.handle(http.MethodGet, "/v1/webhook_endpoints", s.handleEndpointList)
	rt.handle(http.MethodGet, "/v1/webhook_endpoints/{id}", noParams(s.handleEndpointGet, s.v1Error))
	rt.handle(http.MethodDelete, "/v1/webhook_endpoints/{id}", noParams(s.handleEndpointDelete, s.v1Error))
	rt.handle(http.MethodPost, "/v1/webhook_endpoints/{id}/rotate_secret", noParams(s.handleEndpointRotate, s.v1Error))
	rt.handle(http.MethodGet, "/v1/webhook_endpoints/{id}/attempts", noParams(s.handleEndpointAttempts, s.v1Error))
}

// eventParams are the query parameters of GET /v1/events. type may come
// several times, one type each (type=report.accepted&type=report.rejected:
// OpenAPI's form style with explode, what generated clients send for a
// list); none lists every type.
var eventParams = queryRules{known: []string{"type", "limit", "cursor"}, repeatable: []string{"type"}}

// eventQuery reads the query string of GET /v1/events (eventParams). The
// bounds (the types, limit, the cursor) are the use case's.
func eventQuery(raw string) (ports.EventQuery, error) {
	var q ports.EventQuery
	params, err := eventParams.read(raw)
	if err != nil {
		return q, err
	}
	for _, p := range params {
		switch p.key {
		case "type":
			if strings.Contains(p.val, ",") {
				return q, domain.InvalidParameter("type", "un tipo por parámetro; repita type para pedir varios (type=report.accepted&type=report.rejected)")
			}
			q.Types = append(q.Types, p.val)
		case "limit":
			if q.Limit, err = pageLimit(p.val); err != nil {
				return q, err
			}
		case "cursor":
			q.Cursor = p.val
		}
	}
	return q, nil
}

// handleV1Events is GET /v1/events: a page of the partner's events,
// oldest first, each with the receipt of its report at that moment.
func (s *Server) handleV1Events(w http.ResponseWriter, r *http.Request) {
	p, ctx, done, ok := s.startLookup(w, r)
	if !ok {
		return
	}
	w, finish := holdUntil(w, done) // the place is given back before the answer is written
	defer finish()
	q, err := eventQuery(r.URL.RawQuery)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	q.User = p.User
	page, err := s.Events.List(ctx, q)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	out := struct {
		Data       []eventJSON `json:"data"`
		NextCursor *string     `json:"next_cursor"`
	}{Data: make([]eventJSON, len(page.Events))}
	for i, e := range page.Events {
		if out.Data[i], err = eventOf(e); err != nil {
			s.v1Error(w, r, err)
			return
		}
	}
	if page.NextCursor != "" {
		out.NextCursor = &page.NextCursor
	}
	writeJSON(w, http.StatusOK, out)
}

// handleV1Event is GET /v1/events/{id}: one of the partner's events. Any
// other id, another partner's or one that is not an event id, is 404.
func (s *Server) handleV1Event(w http.ResponseWriter, r *http.Request) {
	p, ctx, done, ok := s.startLookup(w, r)
	if !ok {
		return
	}
	w, finish := holdUntil(w, done) // the place is given back before the answer is written
	defer finish()
	e, err := s.Events.Get(ctx, p.User, chi.URLParam(r, "id"))
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	out, err := eventOf(e)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	info(r).reportID = e.Receipt.ID
	writeJSON(w, http.StatusOK, out)
}

// handleV1Redeliver is POST /v1/events/{id}/redeliver: the partner's
// event sent again to each of its enabled endpoints that takes its type.
// 202 {"deliveries": n}: the attempts happen after the answer (n may be
// 0: no endpoint takes it); 404 as GET /v1/events/{id}.
func (s *Server) handleV1Redeliver(w http.ResponseWriter, r *http.Request) {
	p, ctx, done, ok := s.startLookup(w, r)
	if !ok {
		return
	}
	w, finish := holdUntil(w, done) // the place is given back before the answer is written
	defer finish()
	n, err := s.Redeliver.Event(ctx, p.User, chi.URLParam(r, "id"))
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	writeJSON(w, http.StatusAccepted, struct {
		Deliveries int `json:"deliveries"`
	}{n})
}

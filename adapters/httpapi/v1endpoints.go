package httpapi

import (
	"context"
	"net/http"

	"github.com/go-chi/chi/v5"

	"github.com/lender/disbursementd/domain"
)

// endpointJSON is a webhook endpoint as its partner sees it. event_types
// empty means every type; disabled_reason is there while it is disabled,
// last_success_at once a delivery succeeded; secret only in the answer
// that made it (creation, rotation).
type endpointJSON struct {
	ID             string             `json:"id"`
	URL            string             `json:"url"`
	EventTypes     []domain.EventType `json:"event_types"`
	Description    string             `json:"description"`
	Status         string             `json:"status"`
	DisabledReason string             `json:"disabled_reason,omitempty"`
	CreatedAt      string             `json:"created_at"`
	LastSuccessAt  string             `json:"last_success_at,omitempty"`
	Secret         string             `json:"secret,omitempty"`
}

// endpointOf is e's JSON; withSecret shows its current secret.
func endpointOf(e domain.Endpoint, withSecret bool) endpointJSON {
	out := endpointJSON{ID: e.ID, URL: e.URL, EventTypes: e.EventTypes, Description: e.Description, Status: string(e.Status),
		DisabledReason: e.DisabledReason, CreatedAt: domain.ReceiptTime(e.CreatedAt)}
	if out.EventTypes == nil {
		out.EventTypes = []domain.EventType{}
	}
	if !e.LastSuccessAt.IsZero() {
		out.LastSuccessAt = domain.ReceiptTime(e.LastSuccessAt)
	}
	if withSecret {
		out.Secret = string(e.Secret)
	}
	return out
}

// endpointMembers are the members of POST /v1/webhook_endpoints.
var endpointMembers = []string{"url", "event_types", "description"}

// handleEndpointCreate is POST /v1/webhook_endpoints: 201 with the
// endpoint and its secret, shown this once (and on rotation); 422 naming
// url, event_types or description; 409 endpoint_limit past
// webhooks.max_endpoints.
func (s *Server) handleEndpointCreate(w http.ResponseWriter, r *http.Request) {
	p, ok := s.lookupCaller(w, r)
	if !ok {
		return
	}
	// The body first: a trickling one would hold the partner's look-up
	// place (the nineteenth session's attacker review held every GET of
	// the partner at 503 for as long as it trickled).
	b, err := s.readSmall(w, r, partnerOf(p), endpointMembers...)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	ctx, done, ok := s.lookupSlot(w, r, p)
	if !ok {
		return
	}
	w, finish := holdUntil(w, done) // the place is given back before the answer is written
	defer finish()
	req := domain.EndpointRequest{URL: b.text("url"), EventTypes: b.texts("event_types"), Description: b.text("description")}
	if _, sent := b.members["url"]; !sent {
		b.add("url", domain.CodeRequired, "es obligatorio: "+domain.WebhookURLBound.Es)
	}
	if err := b.err("invalid_endpoint", "Endpoint"); err != nil {
		s.v1Error(w, r, err)
		return
	}
	e, err := s.Endpoints.Create(ctx, p.User, req)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	w.Header().Set("Location", "/v1/webhook_endpoints/"+e.ID)
	writeJSON(w, http.StatusCreated, endpointOf(e, true))
}

// handleEndpointList is GET /v1/webhook_endpoints: the partner's
// endpoints, oldest first, without secrets.
func (s *Server) handleEndpointList(w http.ResponseWriter, r *http.Request) {
	p, ctx, done, ok := s.startLookup(w, r)
	if !ok {
		return
	}
	w, finish := holdUntil(w, done) // the place is given back before the answer is written
	defer finish()
	if _, err := (queryRules{}).read(r.URL.RawQuery); err != nil {
		s.v1Error(w, r, err)
		return
	}
	es, err := s.Endpoints.List(ctx, p.User)
	if err != nil {
		s.v1Error(w, r, err)
		return
	}
	out := struct {
		Data []endpointJSON `json:"data"`
	}{Data: make([]endpointJSON, len(es))}
	for i, e := range es {
		out.Data[i] = endpointOf(e, false)
	}
	writeJSON(w, http.StatusOK, out)
}

// handleEndpointGet is GET /v1/webhook_endpoints/{id}: one of the
// partner's endpoints, without its secret (with why it is disabled when
// it is). Another partner's, or no endpoint, is 404.
func (s *Server) handleEndpointGet(w http.ResponseWriter, r *http.Request) {
	s.endpointCall(w, r, func(ctx context.Context, user, id string) (any, error) {
		e, err := s.Endpoints.Get(ctx, user, id)
		return endpointOf(e, false), err
	})
}

// handleEndpointDelete is DELETE /v1/webhook_endpoints/{id}: 204; its
// pending deliveries go with it.
func (s *Server) handleEndpointDelete(w http.ResponseWriter, r *http.Request) {
	s.endpointCall(w, r, func(ctx context.Context, user, id string) (any, error) {
		return nil, s.Endpoints.Delete(ctx, user, id)
	})
}

// handleEndpointRotate is POST /v1/webhook_endpoints/{id}/rotate_secret:
// the endpoint with its new secret; the old one signs beside it for 24 h.
// Another partner's endpoint is 404, as for every endpoint route.
func (s *Server) handleEndpointRotate(w http.ResponseWriter, r *http.Request) {
	s.endpointCall(w, r, func(ctx context.Context, user, id string) (any, error) {
		e, err := s.Endpoints.RotateSecret(ctx, user, id)
		return endpointOf(e, true), err
	})
}

// attemptJSON is one attempt of the attempts log: status_code null when
// no answer came, error null on a 2xx.
type attemptJSON struct {
	EventID    string  `json:"event_id"`
	At         string  `json:"at"`
	StatusCode *int    `json:"status_code"`
	Error      *string `json:"error"`
	DurationMS int64   `json:"duration_ms"`
}

// handleEndpointAttempts is GET /v1/webhook_endpoints/{id}/attempts: the
// endpoint's newest attempts (at most domain.MaxAttemptsListed), newest
// first.
func (s *Server) handleEndpointAttempts(w http.ResponseWriter, r *http.Request) {
	s.endpointCall(w, r, func(ctx context.Context, user, id string) (any, error) {
		as, err := s.Endpoints.Attempts(ctx, user, id)
		out := struct {
			Data []attemptJSON `json:"data"`
		}{Data: make([]attemptJSON, len(as))}
		for i, a := range as {
			out.Data[i] = attemptJSON{EventID: a.EventID, At: domain.ReceiptTime(a.At), DurationMS: a.Duration.Milliseconds()}
			if a.StatusCode != 0 {
				out.Data[i].StatusCode = &as[i].StatusCode
			}
			if a.Error != "" {
				out.Data[i].Error = &as[i].Error
			}
		}
		return out, err
	})
}

// endpointCall runs a route of one endpoint as a look-up (startLookup)
// and answers what call returns: its value (200), nothing (204, for a
// nil value), or its error. call's context ends at the look-up's timeout.
func (s *Server) endpointCall(w http.ResponseWriter, r *http.Request, call func(ctx context.Context, user, id string) (any, error)) {
	p, ctx, done, ok := s.startLookup(w, r)
	if !ok {
		return
	}
	w, finish := holdUntil(w, done) // the place is given back before the answer is written
	defer finish()
	v, err := call(ctx, p.User, chi.URLParam(r, "id"))
	switch {
	case err != nil:
		s.v1Error(w, r, err)
	case v == nil:
		writeNoContent(w)
	default:
		writeJSON(w, http.StatusOK, v)
	}
}

package ports

import (
	"context"

	"github.com/lender/disbursementd/domain"
)

// What operators do with partners' endpoints (webhooks list, disable,
// enable): any partner's, by the endpoint's public id. A partner's own
// routes never reach these.

// MsgDisabledByOperator is the reason an endpoint disabled by an operator
// shows in its GET, unless the operator gave one.
const MsgDisabledByOperator = "disabled by the lender's operator"

// All returns every partner's endpoints, oldest first, without their
// secrets.
func (s *WebhookEndpoints) All(ctx context.Context) ([]domain.Endpoint, error) {
	es, err := s.store.AllEndpoints(ctx)
	if err != nil {
		return nil, lookupFailed(err)
	}
	for i := range es {
		es[i].Secret, es[i].PreviousSecret = "", ""
	}
	return es, nil
}

// Disable stops deliveries to endpoint id, whoever's it is; its GET says
// reason (MsgDisabledByOperator when ""). domain.ErrNotFound.
func (s *WebhookEndpoints) Disable(ctx context.Context, id, reason string) error {
	if reason == "" {
		reason = MsgDisabledByOperator
	}
	return s.setStatus(ctx, id, domain.EndpointDisabled, reason)
}

// Enable lets endpoint id receive deliveries again, whoever's it is.
// domain.ErrNotFound.
func (s *WebhookEndpoints) Enable(ctx context.Context, id string) error {
	return s.setStatus(ctx, id, domain.EndpointEnabled, "")
}

func (s *WebhookEndpoints) setStatus(ctx context.Context, id string, st domain.EndpointStatus, reason string) error {
	if !domain.ValidEndpointID(id) {
		return domain.NewError(domain.ErrNotFound, "not_found", MsgEndpointNotFound+" ("+domain.Clip(id)+" is not an endpoint id)")
	}
	return endpointErr(s.store.SetEndpointStatus(ctx, id, st, reason))
}

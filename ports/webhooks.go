package ports

import (
	"context"
	"crypto/rand"
	"errors"
	"strconv"
	"time"

	"github.com/lender/disbursementd/domain"
)

// EndpointStore keeps partners' webhook endpoints (contract §11). user is
// the token's subject; another partner's endpoint is domain.ErrNotFound,
// as a missing one.
type EndpointStore interface {
	// CreateEndpoint adds e when its partner has fewer than max endpoints,
	// as one atomic step on every store and replica (two creations racing
	// on two database nodes never make max + 1); domain.ErrConflict when
	// the partner has max already.
	CreateEndpoint(ctx context.Context, e domain.Endpoint, max int) error
	// ListEndpoints returns user's endpoints, oldest first.
	ListEndpoints(ctx context.Context, user string) ([]domain.Endpoint, error)
	// GetEndpoint returns user's endpoint id; domain.ErrNotFound.
	GetEndpoint(ctx context.Context, user, id string) (domain.Endpoint, error)
	// DeleteEndpoint removes user's endpoint id and its pending
	// deliveries; domain.ErrNotFound.
	DeleteEndpoint(ctx context.Context, user, id string) error
	// RotateSecret makes secret user's endpoint id's secret, keeping the
	// current one as the previous until previousUntil, and returns the
	// endpoint after; domain.ErrNotFound. While an earlier rotation's
	// previous secret still signs at now, it changes nothing and returns
	// domain.RotationRunning (ErrConflict) with that secret's end: the
	// secret a receiver still holds is never dropped before its 24 h.
	RotateSecret(ctx context.Context, user, id string, secret domain.WebhookSecret, now, previousUntil time.Time) (domain.Endpoint, error)
	// Attempts returns the newest attempts (at most limit) of user's
	// endpoint id, newest first; domain.ErrNotFound.
	Attempts(ctx context.Context, user, id string, limit int) ([]domain.Attempt, error)
	// AllEndpoints returns every partner's endpoints (the operator's
	// list), oldest first.
	AllEndpoints(ctx context.Context) ([]domain.Endpoint, error)
	// SetEndpointStatus enables or disables endpoint id, whoever's it is,
	// with the reason shown in its GET ("" when enabling);
	// domain.ErrNotFound.
	SetEndpointStatus(ctx context.Context, id string, status domain.EndpointStatus, reason string) error
}

// WebhookEndpoints is the use case "a partner manages its webhook
// endpoints".
type WebhookEndpoints struct {
	store   EndpointStore
	rules   domain.WebhookURLRules
	clock   Clock
	max     int
	overlap time.Duration
}

// NewWebhookEndpoints returns the use case on store, with the URL rules
// and the most endpoints a partner may have (webhooks.max_endpoints).
func NewWebhookEndpoints(store EndpointStore, rules domain.WebhookURLRules, clock Clock, max int) (*WebhookEndpoints, error) {
	if store == nil || clock == nil || max < 1 {
		return nil, errors.New("ports: NewWebhookEndpoints needs a store, a clock and a maximum of endpoints above 0")
	}
	return &WebhookEndpoints{store: store, rules: rules, clock: clock, max: max, overlap: domain.SecretOverlap}, nil
}

// MsgEndpointNotFound is the message of an endpoint that is not the
// partner's, or not there.
const MsgEndpointNotFound = "Endpoint no encontrado"

// Create adds an endpoint for user and returns it with its secret, the
// only time the secret is shown but for a rotation. Errors:
// domain.ErrInvalidInput (invalid_endpoint naming url, event_types or
// description), domain.ErrConflict (endpoint_limit), domain.ErrUnavailable.
func (s *WebhookEndpoints) Create(ctx context.Context, user string, req domain.EndpointRequest) (domain.Endpoint, error) {
	e, err := s.rules.CheckEndpoint(req)
	if err != nil {
		return domain.Endpoint{}, err
	}
	e.PartnerUser, e.CreatedAt = user, s.clock.Now().UTC().Truncate(time.Millisecond)
	e.ID = domain.NewEndpointID(randomBytes(domain.EndpointIDRandomBytes))
	e.Secret, _ = domain.NewWebhookSecret(randomBytes(domain.WebhookSecretBytes))
	switch err := s.store.CreateEndpoint(ctx, e, s.max); {
	case errors.Is(err, domain.ErrConflict):
		return domain.Endpoint{}, domain.NewError(domain.ErrConflict, "endpoint_limit",
			"Ya tiene el máximo de endpoints ("+strconv.Itoa(s.max)+"); borre uno antes de crear otro").WithCause(err)
	case err != nil:
		return domain.Endpoint{}, lookupFailed(err)
	}
	return e, nil
}

// List returns user's endpoints, without their secrets.
func (s *WebhookEndpoints) List(ctx context.Context, user string) ([]domain.Endpoint, error) {
	es, err := s.store.ListEndpoints(ctx, user)
	if err != nil {
		return nil, lookupFailed(err)
	}
	for i := range es {
		es[i].Secret, es[i].PreviousSecret = "", ""
	}
	return es, nil
}

// Get returns user's endpoint id, without its secrets; domain.ErrNotFound.
func (s *WebhookEndpoints) Get(ctx context.Context, user, id string) (domain.Endpoint, error) {
	e, err := s.get(ctx, user, id)
	e.Secret, e.PreviousSecret = "", ""
	return e, err
}

func (s *WebhookEndpoints) get(ctx context.Context, user, id string) (domain.Endpoint, error) {
	if !domain.ValidEndpointID(id) {
		return domain.Endpoint{}, domain.NewError(domain.ErrNotFound, "not_found", MsgEndpointNotFound)
	}
	e, err := s.store.GetEndpoint(ctx, user, id)
	return e, endpointErr(err)
}

// Delete removes user's endpoint id; domain.ErrNotFound.
func (s *WebhookEndpoints) Delete(ctx context.Context, user, id string) error {
	if !domain.ValidEndpointID(id) {
		return domain.NewError(domain.ErrNotFound, "not_found", MsgEndpointNotFound)
	}
	return endpointErr(s.store.DeleteEndpoint(ctx, user, id))
}

// RotateSecret gives user's endpoint id a new secret and returns the
// endpoint with it; the old one signs too for domain.SecretOverlap.
// domain.ErrNotFound; 409 rotation_in_progress (domain.RotationRunning)
// while an earlier rotation's overlap lasts: a rotation retried after a
// lost answer must not drop the secret the receiver still holds.
func (s *WebhookEndpoints) RotateSecret(ctx context.Context, user, id string) (domain.Endpoint, error) {
	if !domain.ValidEndpointID(id) {
		return domain.Endpoint{}, domain.NewError(domain.ErrNotFound, "not_found", MsgEndpointNotFound)
	}
	secret, _ := domain.NewWebhookSecret(randomBytes(domain.WebhookSecretBytes))
	now := s.clock.Now().UTC()
	e, err := s.store.RotateSecret(ctx, user, id, secret, now, now.Add(s.overlap))
	if err != nil {
		return domain.Endpoint{}, endpointErr(err)
	}
	e.PreviousSecret = ""
	return e, nil
}

// Attempts returns the newest attempts of user's endpoint id (at most
// domain.MaxAttemptsListed), newest first; domain.ErrNotFound.
func (s *WebhookEndpoints) Attempts(ctx context.Context, user, id string) ([]domain.Attempt, error) {
	if !domain.ValidEndpointID(id) {
		return nil, domain.NewError(domain.ErrNotFound, "not_found", MsgEndpointNotFound)
	}
	as, err := s.store.Attempts(ctx, user, id, domain.MaxAttemptsListed)
	return as, endpointErr(err)
}

func endpointErr(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, domain.ErrNotFound):
		return domain.NewError(domain.ErrNotFound, "not_found", MsgEndpointNotFound).WithCause(err)
	case errors.Is(err, domain.ErrConflict):
		return err // the store's own answer (RotationRunning)
	}
	return lookupFailed(err)
}

// randomBytes returns n bytes from crypto/rand, which never fails.
func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

package httpapi

import (
	"context"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// The operations the HTTP adapter calls, declared on its side (the
// consumer's): the use cases in package ports satisfy them, and the
// handler tests use small fakes.

// Reporter stores a partner's report (ports.Reports).
type Reporter interface {
	Submit(ctx context.Context, sub ports.Submission) (domain.Receipt, error)
}

// Validator checks a report without storing it (ports.Reports).
type Validator interface {
	Validate(ctx context.Context, sub ports.Submission) error
}

// ReportReader shows partners their own reports (ports.ReportQueries).
type ReportReader interface {
	Get(ctx context.Context, user string, id int64) (domain.StoredReport, error)
	List(ctx context.Context, q ports.ListQuery) (ports.Page, error)
}

// TokenExchanger swaps credentials for a token (ports.Auth).
type TokenExchanger interface {
	Token(ctx context.Context, at ports.LoginAttempt) (ports.Issued, error)
}

// Authenticator tells whom a token speaks for (ports.Auth).
type Authenticator interface {
	Authenticate(ctx context.Context, token string) (ports.Principal, error)
}

// Check is one readiness check.
type Check struct {
	Name string
	Fn   func(ctx context.Context) error
}

// EventReader shows partners their own events (ports.Events).
type EventReader interface {
	List(ctx context.Context, q ports.EventQuery) (ports.EventPage, error)
	Get(ctx context.Context, user, id string) (domain.Event, error)
}

// Redeliverer sends a partner's event again to its endpoints
// (ports.Redelivery).
type Redeliverer interface {
	Event(ctx context.Context, user, id string) (int, error)
}

// EndpointManager manages a partner's own webhook endpoints
// (ports.WebhookEndpoints).
type EndpointManager interface {
	Create(ctx context.Context, user string, req domain.EndpointRequest) (domain.Endpoint, error)
	List(ctx context.Context, user string) ([]domain.Endpoint, error)
	Get(ctx context.Context, user, id string) (domain.Endpoint, error)
	Delete(ctx context.Context, user, id string) error
	RotateSecret(ctx context.Context, user, id string) (domain.Endpoint, error)
	Attempts(ctx context.Context, user, id string) ([]domain.Attempt, error)
}

// Decider records the lender's decisions (ports.Decisions).
type Decider interface {
	Decide(ctx context.Context, id int64, req domain.DecisionRequest, by string) (domain.StoredReceipt, ports.Decided, error)
}

// BackofficeAuthenticator tells which back-office client a secret is
// (ports.Backoffice).
type BackofficeAuthenticator interface {
	Authenticate(ctx context.Context, secret string) (ports.BackofficeClient, error)
}

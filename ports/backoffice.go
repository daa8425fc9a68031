package ports

import (
	"context"
	"errors"
	"time"

	"github.com/lender/disbursementd/domain"
)

// BackofficeStore keeps the back-office clients that may decide reports
// on the internal listener (contract §11), by the SHA-256 of their
// secrets (domain.BackofficeSecretHash): a secret is never stored.
type BackofficeStore interface {
	// AddBackofficeClient adds a client; domain.ErrConflict when the name
	// is taken.
	AddBackofficeClient(ctx context.Context, c BackofficeClient, secretHash string) error
	// BackofficeClientByHash returns the client whose secret hashes to
	// hash; domain.ErrNotFound.
	BackofficeClientByHash(ctx context.Context, hash string) (BackofficeClient, error)
	// ListBackofficeClients returns every client by name.
	ListBackofficeClients(ctx context.Context) ([]BackofficeClient, error)
	// RemoveBackofficeClient removes a client; domain.ErrNotFound.
	RemoveBackofficeClient(ctx context.Context, name string) error
}

// BackofficeClient is a named client of the decision API.
type BackofficeClient struct {
	Name      string
	CreatedAt time.Time
}

// Backoffice is the use case "operators manage back-office clients, and
// the decision API knows them".
type Backoffice struct {
	store BackofficeStore
	clock Clock
}

// NewBackoffice returns the use case on store.
func NewBackoffice(store BackofficeStore, clock Clock) (*Backoffice, error) {
	if store == nil || clock == nil {
		return nil, errors.New("ports: NewBackoffice needs a store and a clock")
	}
	return &Backoffice{store: store, clock: clock}, nil
}

// Add creates a client and returns its secret, which is shown this once.
// Errors: domain.ErrInvalidInput (a name domain.CheckBackofficeName
// refuses), domain.ErrConflict (name_taken), domain.ErrUnavailable.
func (b *Backoffice) Add(ctx context.Context, name string) (string, error) {
	if err := domain.CheckBackofficeName(name); err != nil {
		return "", err
	}
	secret := domain.NewBackofficeSecret(randomBytes(domain.BackofficeSecretBytes))
	c := BackofficeClient{Name: name, CreatedAt: b.clock.Now().UTC().Truncate(time.Second)}
	switch err := b.store.AddBackofficeClient(ctx, c, domain.BackofficeSecretHash(secret)); {
	case errors.Is(err, domain.ErrConflict):
		return "", domain.NewError(domain.ErrConflict, "name_taken", "back-office client "+name+" exists already (backoffice list shows it)").WithCause(err)
	case err != nil:
		return "", backofficeFailed(err)
	}
	return secret, nil
}

// backofficeFailed is the error of a store that failed on back-office
// clients.
func backofficeFailed(err error) error {
	return domain.Unavailable("back-office clients unavailable").WithCause(err)
}

// Authenticate returns the client whose secret this is, or an error of
// kind domain.ErrInvalidToken for anything else (a partner's token
// included); domain.ErrUnavailable when the store fails.
func (b *Backoffice) Authenticate(ctx context.Context, secret string) (BackofficeClient, error) {
	hash := domain.BackofficeSecretHash(secret)
	if hash == "" {
		return BackofficeClient{}, domain.InvalidToken("malformed")
	}
	c, err := b.store.BackofficeClientByHash(ctx, hash)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		return BackofficeClient{}, domain.InvalidToken("unknown_client")
	case err != nil:
		return BackofficeClient{}, backofficeFailed(err)
	}
	return c, nil
}

// List returns every client by name; domain.ErrUnavailable when the
// store fails.
func (b *Backoffice) List(ctx context.Context) ([]BackofficeClient, error) {
	cs, err := b.store.ListBackofficeClients(ctx)
	if err != nil {
		return nil, backofficeFailed(err)
	}
	return cs, nil
}

// Remove removes a client: its secret stops working at once.
// domain.ErrNotFound (not_found) when there is none; domain.ErrUnavailable
// when the store fails.
func (b *Backoffice) Remove(ctx context.Context, name string) error {
	switch err := b.store.RemoveBackofficeClient(ctx, name); {
	case errors.Is(err, domain.ErrNotFound):
		return domain.NewError(domain.ErrNotFound, "not_found", "no back-office client "+domain.Clip(name)+" (backoffice list shows them)").WithCause(err)
	case err != nil:
		return backofficeFailed(err)
	}
	return nil
}

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
// refuses), domain.ErrConflict (the name is taken).
func (b *Backoffice) Add(ctx context.Context, name string) (string, error) {
	if err := domain.CheckBackofficeName(name); err != nil {
		return "", err
	}
	secret := domain.NewBackofficeSecret(randomBytes(domain.BackofficeSecretBytes))
	c := BackofficeClient{Name: name, CreatedAt: b.clock.Now().UTC().Truncate(time.Second)}
	if err := b.store.AddBackofficeClient(ctx, c, domain.BackofficeSecretHash(secret)); err != nil {
		return "", err
	}
	return secret, nil
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
		return BackofficeClient{}, domain.Unavailable("back-office clients unavailable").WithCause(err)
	}
	return c, nil
}

// List returns every client by name.
func (b *Backoffice) List(ctx context.Context) ([]BackofficeClient, error) {
	return b.store.ListBackofficeClients(ctx)
}

// Remove removes a client: its secret stops working at once.
// domain.ErrNotFound.
func (b *Backoffice) Remove(ctx context.Context, name string) error {
	return b.store.RemoveBackofficeClient(ctx, name)
}

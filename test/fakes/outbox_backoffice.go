package fakes

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// outboxClient is a back-office client and the hash of its secret.
type outboxClient struct {
	c    ports.BackofficeClient
	hash string
}

// AddBackofficeClient adds c unless its name or hash is taken.
func (o *Outbox) AddBackofficeClient(_ context.Context, c ports.BackofficeClient, secretHash string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if slices.ContainsFunc(o.backoffice, func(x outboxClient) bool { return x.c.Name == c.Name || x.hash == secretHash }) {
		return fmt.Errorf("back-office client %q: %w", c.Name, domain.ErrConflict)
	}
	c.CreatedAt = c.CreatedAt.UTC()
	o.backoffice = append(o.backoffice, outboxClient{c: c, hash: secretHash})
	return nil
}

// BackofficeClientByHash returns the client of hash.
func (o *Outbox) BackofficeClientByHash(_ context.Context, hash string) (ports.BackofficeClient, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for _, x := range o.backoffice {
		if x.hash == hash {
			return x.c, nil
		}
	}
	return ports.BackofficeClient{}, fmt.Errorf("back-office client: %w", domain.ErrNotFound)
}

// ListBackofficeClients returns every client by name.
func (o *Outbox) ListBackofficeClients(context.Context) ([]ports.BackofficeClient, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	var out []ports.BackofficeClient
	for _, x := range o.backoffice {
		out = append(out, x.c)
	}
	slices.SortFunc(out, func(a, b ports.BackofficeClient) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// RemoveBackofficeClient removes the client name.
func (o *Outbox) RemoveBackofficeClient(_ context.Context, name string) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	n := len(o.backoffice)
	o.backoffice = slices.DeleteFunc(o.backoffice, func(x outboxClient) bool { return x.c.Name == name })
	if len(o.backoffice) == n {
		return fmt.Errorf("back-office client %q: %w", name, domain.ErrNotFound)
	}
	return nil
}

package fakes

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Backoffice is an in-memory ports.BackofficeStore.
type Backoffice struct {
	mu      sync.Mutex
	clients map[string]ports.BackofficeClient // by secret hash
}

var _ ports.BackofficeStore = (*Backoffice)(nil)

// NewBackoffice returns an empty store.
func NewBackoffice() *Backoffice { return &Backoffice{clients: map[string]ports.BackofficeClient{}} }

// AddBackofficeClient adds c unless its name is taken.
func (m *Backoffice) AddBackofficeClient(_ context.Context, c ports.BackofficeClient, secretHash string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for _, x := range m.clients {
		if x.Name == c.Name {
			return fmt.Errorf("back-office client %q: %w", c.Name, domain.ErrConflict)
		}
	}
	m.clients[secretHash] = c
	return nil
}

// BackofficeClientByHash returns the client of hash.
func (m *Backoffice) BackofficeClientByHash(_ context.Context, hash string) (ports.BackofficeClient, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c, ok := m.clients[hash]; ok {
		return c, nil
	}
	return ports.BackofficeClient{}, fmt.Errorf("back-office client: %w", domain.ErrNotFound)
}

// ListBackofficeClients returns every client by name.
func (m *Backoffice) ListBackofficeClients(context.Context) ([]ports.BackofficeClient, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []ports.BackofficeClient
	for _, c := range m.clients {
		out = append(out, c)
	}
	slices.SortFunc(out, func(a, b ports.BackofficeClient) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

// RemoveBackofficeClient removes the client name.
func (m *Backoffice) RemoveBackofficeClient(_ context.Context, name string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	for h, c := range m.clients {
		if c.Name == name {
			delete(m.clients, h)
			return nil
		}
	}
	return fmt.Errorf("back-office client %q: %w", name, domain.ErrNotFound)
}

package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

var _ ports.BackofficeStore = (*Store)(nil)

// backofficeTable holds the back-office clients (migration 7), by name and
// by the SHA-256 of their secrets.
const backofficeTable = "backoffice_clients"

// AddBackofficeClient adds c with the hash of its secret;
// domain.ErrConflict when the name (or, never in practice, the hash) is
// taken.
func (s *Store) AddBackofficeClient(ctx context.Context, c ports.BackofficeClient, secretHash string) error {
	_, err := s.execTx(ctx, "INSERT INTO "+backofficeTable+" (name, secret_sha256, created_at) VALUES (?, ?, ?)",
		c.Name, secretHash, c.CreatedAt.UTC())
	switch {
	case err != nil && isDuplicate(err):
		return fmt.Errorf("back-office client %q: %w", c.Name, domain.ErrConflict)
	case err != nil:
		return fmt.Errorf("add back-office client: %w", err)
	}
	return nil
}

// BackofficeClientByHash returns the client whose secret hashes to hash;
// domain.ErrNotFound.
func (s *Store) BackofficeClientByHash(ctx context.Context, hash string) (ports.BackofficeClient, error) {
	var c ports.BackofficeClient
	var created any
	err := s.read.sql.QueryRowContext(ctx, "SELECT name, created_at FROM "+backofficeTable+" WHERE secret_sha256 = ?", hash).
		Scan(&c.Name, &created)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return c, fmt.Errorf("back-office client: %w", domain.ErrNotFound)
	case err != nil:
		return c, fmt.Errorf("read back-office client: %w", err)
	}
	if c.CreatedAt, err = storedTime(created); err != nil {
		return c, fmt.Errorf("back-office client %q: created_at: %w", c.Name, err)
	}
	return c, nil
}

// ListBackofficeClients returns every client by name.
func (s *Store) ListBackofficeClients(ctx context.Context) ([]ports.BackofficeClient, error) {
	out, err := queryAll(ctx, s.read, "SELECT name, created_at FROM "+backofficeTable+" ORDER BY name", nil, 16,
		func(rows *sql.Rows) (ports.BackofficeClient, error) {
			var c ports.BackofficeClient
			var created any
			if err := rows.Scan(&c.Name, &created); err != nil {
				return c, err
			}
			var err error
			c.CreatedAt, err = storedTime(created)
			return c, err
		})
	if err != nil {
		return nil, fmt.Errorf("list back-office clients: %w", err)
	}
	return out, nil
}

// RemoveBackofficeClient removes the client name; domain.ErrNotFound.
func (s *Store) RemoveBackofficeClient(ctx context.Context, name string) error {
	n, err := s.execTx(ctx, "DELETE FROM "+backofficeTable+" WHERE name = ?", name)
	switch {
	case err != nil:
		return fmt.Errorf("remove back-office client: %w", err)
	case n == 0:
		return fmt.Errorf("back-office client %q: %w", domain.Clip(name), domain.ErrNotFound)
	}
	return nil
}

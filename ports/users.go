package ports

import (
	"context"
	"fmt"

	"github.com/lender/disbursementd/domain"
)

// Users manages the built-in login's users (the CLI's users commands).
type Users struct {
	Store  UserStore
	Hasher PasswordHasher
	Clock  Clock
}

// MinPasswordLength is the shortest password users add accepts.
const MinPasswordLength = 12

// Add creates an active user with a hashed password.
func (s *Users) Add(ctx context.Context, name, nit, password string) (domain.User, error) {
	if err := domain.ValidateUserName(name); err != nil {
		return domain.User{}, err
	}
	n, err := domain.NormalizeUserNIT(nit)
	if err != nil {
		return domain.User{}, err
	}
	if len(password) < MinPasswordLength || len(password) > 72 {
		return domain.User{}, domain.NewError(domain.ErrInvalidInput, "weak_password",
			fmt.Sprintf("the password must be %d to 72 bytes long", MinPasswordLength))
	}
	hash, err := s.Hasher.Hash(password)
	if err != nil {
		return domain.User{}, fmt.Errorf("hash password: %w", err)
	}
	now := s.Clock.Now().UTC()
	u := domain.User{Name: name, NIT: n, PasswordHash: hash, Active: true, CreatedAt: now, UpdatedAt: now}
	if err := s.Store.CreateUser(ctx, u); err != nil {
		return domain.User{}, err
	}
	return u, nil
}

// SetActive activates or deactivates a user.
func (s *Users) SetActive(ctx context.Context, name string, active bool) error {
	return s.Store.SetActive(ctx, name, active)
}

// List returns every user.
func (s *Users) List(ctx context.Context) ([]domain.User, error) {
	return s.Store.ListUsers(ctx)
}

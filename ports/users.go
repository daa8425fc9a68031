package ports

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/lender/disbursementd/domain"
)

// Users manages the built-in login's users (the CLI's users commands).
type Users struct {
	store  UserStore
	hasher PasswordHasher
	clock  Clock
}

// NewUsers returns the use case on the user store, the password hasher
// and the clock; it refuses a missing one.
func NewUsers(store UserStore, hasher PasswordHasher, clock Clock) (*Users, error) {
	if store == nil || hasher == nil || clock == nil {
		return nil, errors.New("ports: NewUsers needs a user store, a password hasher and a clock")
	}
	return &Users{store: store, hasher: hasher, clock: clock}, nil
}

// Add creates an active user with a hashed password
// (domain.CheckNewPassword).
func (s *Users) Add(ctx context.Context, name, nit, password string) (domain.User, error) {
	if err := domain.ValidateUserName(name); err != nil {
		return domain.User{}, err
	}
	n, err := domain.NormalizeUserNIT(nit)
	if err != nil {
		return domain.User{}, err
	}
	if err := domain.CheckNewPassword(password); err != nil {
		return domain.User{}, err
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return domain.User{}, fmt.Errorf("hash password: %w", err)
	}
	now := s.clock.Now().UTC()
	u := domain.User{Name: name, NIT: n, PasswordHash: hash, Active: true, CreatedAt: now, UpdatedAt: now}
	if err := s.store.CreateUser(ctx, u); err != nil {
		return domain.User{}, userStoreErr(err)
	}
	return u, nil
}

// ChangePassword gives a user a new password (the same rule as Add) and
// returns when it changed: tokens issued before that second are refused
// from then on, within the replicas' auth.user_staleness (Auth).
// domain.ErrNotFound when there is no such user.
func (s *Users) ChangePassword(ctx context.Context, name, password string) (time.Time, error) {
	if err := domain.CheckNewPassword(password); err != nil {
		return time.Time{}, err
	}
	hash, err := s.hasher.Hash(password)
	if err != nil {
		return time.Time{}, fmt.Errorf("hash password: %w", err)
	}
	at := s.clock.Now().UTC()
	if err := s.store.ChangePassword(ctx, name, hash, at); err != nil {
		return time.Time{}, userStoreErr(err)
	}
	return at, nil
}

// SetActive activates or deactivates a user.
func (s *Users) SetActive(ctx context.Context, name string, active bool) error {
	return userStoreErr(s.store.SetActive(ctx, name, active))
}

// userStoreErr gives the user store's ErrConflict (a name taken) and
// ErrNotFound (no such user) their kind (domain.KindOf), so callers read
// the kind and never the cause's chain.
func userStoreErr(err error) error {
	switch {
	case err == nil || domain.KindOf(err) != nil:
		return err
	case errors.Is(err, domain.ErrConflict):
		return domain.NewError(domain.ErrConflict, "user_exists", "the user exists already").WithCause(err)
	case errors.Is(err, domain.ErrNotFound):
		return domain.NewError(domain.ErrNotFound, "no_such_user", "no such user").WithCause(err)
	}
	return err
}

// List returns every user.
func (s *Users) List(ctx context.Context) ([]domain.User, error) {
	return s.store.ListUsers(ctx)
}

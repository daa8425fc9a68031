package ports

import (
	"context"
	"fmt"
	"time"

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
	if err := checkPassword(password); err != nil {
		return domain.User{}, err
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

// checkPassword is the rule of a new password (users add and passwd):
// 12 to 72 bytes, 72 being bcrypt's limit.
func checkPassword(password string) error {
	if len(password) < MinPasswordLength || len(password) > 72 {
		return domain.NewError(domain.ErrInvalidInput, "weak_password",
			fmt.Sprintf("the password must be %d to 72 bytes long", MinPasswordLength))
	}
	return nil
}

// ChangePassword gives a user a new password (the same rule as Add) and
// returns when it changed: tokens issued before that second are refused
// from then on, within the replicas' auth.user_staleness (Auth).
// domain.ErrNotFound when there is no such user.
func (s *Users) ChangePassword(ctx context.Context, name, password string) (time.Time, error) {
	if err := checkPassword(password); err != nil {
		return time.Time{}, err
	}
	hash, err := s.Hasher.Hash(password)
	if err != nil {
		return time.Time{}, fmt.Errorf("hash password: %w", err)
	}
	at := s.Clock.Now().UTC()
	if err := s.Store.ChangePassword(ctx, name, hash, at); err != nil {
		return time.Time{}, err
	}
	return at, nil
}

// SetActive activates or deactivates a user.
func (s *Users) SetActive(ctx context.Context, name string, active bool) error {
	return s.Store.SetActive(ctx, name, active)
}

// List returns every user.
func (s *Users) List(ctx context.Context) ([]domain.User, error) {
	return s.Store.ListUsers(ctx)
}

package gormstore

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"gorm.io/gorm"

	"github.com/lender/disbursementd/domain"
)

type userRow struct {
	ID           int64
	Username     string
	PasswordHash string
	NIT          string `gorm:"column:nit"`
	Active       int
	CreatedAt    time.Time
	UpdatedAt    time.Time
	// PasswordChangedAt is when users passwd last ran (migration 5); NULL
	// for a password never changed.
	PasswordChangedAt *time.Time
	// The last rotation (migration 9): the replaced secret's hash, when,
	// and until when it opens a login; NULL when never rotated.
	PreviousPasswordHash *string
	RotatedAt            *time.Time
	PreviousUntil        *time.Time
}

func (userRow) TableName() string { return "users" }

func (r userRow) toDomain() domain.User {
	u := domain.User{Name: r.Username, NIT: r.NIT, PasswordHash: r.PasswordHash, Active: r.Active == 1,
		CreatedAt: r.CreatedAt.UTC(), UpdatedAt: r.UpdatedAt.UTC()}
	if r.PasswordChangedAt != nil {
		u.PasswordChangedAt = r.PasswordChangedAt.UTC()
	}
	if r.PreviousPasswordHash != nil {
		u.PreviousPasswordHash = *r.PreviousPasswordHash
	}
	if r.RotatedAt != nil {
		u.RotatedAt = r.RotatedAt.UTC()
	}
	if r.PreviousUntil != nil {
		u.PreviousUntil = r.PreviousUntil.UTC()
	}
	return u
}

// CreateUser adds a user; domain.ErrConflict when the name is taken.
func (s *Store) CreateUser(ctx context.Context, u domain.User) error {
	active := 0
	if u.Active {
		active = 1
	}
	created, updated := u.CreatedAt.UTC(), u.UpdatedAt.UTC()
	if u.CreatedAt.IsZero() { // as gorm's Create did
		created = s.clock.Now().UTC()
	}
	if u.UpdatedAt.IsZero() {
		updated = created
	}
	// Through execTx, as every write two replicas may make at once (on a
	// Galera cluster the later to certify gets a 1213; run again, it
	// finds the name taken).
	if _, err := s.execTx(ctx, "INSERT INTO users (username, password_hash, nit, active, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)",
		u.Name, u.PasswordHash, u.NIT, active, created, updated); err != nil {
		if isDuplicate(err) {
			return fmt.Errorf("user %q: %w", u.Name, domain.ErrConflict)
		}
		return fmt.Errorf("create user: %w", err)
	}
	return nil
}

// GetUser returns a user or domain.ErrNotFound.
func (s *Store) GetUser(ctx context.Context, name string) (domain.User, error) {
	var row userRow
	err := s.read.orm.WithContext(ctx).Where("username = ?", name).Take(&row).Error
	if errors.Is(err, gorm.ErrRecordNotFound) {
		return domain.User{}, fmt.Errorf("user %q: %w", name, domain.ErrNotFound)
	}
	if err != nil {
		return domain.User{}, fmt.Errorf("get user: %w", err)
	}
	return row.toDomain(), nil
}

// SetActive sets a user's active flag; domain.ErrNotFound.
func (s *Store) SetActive(ctx context.Context, name string, active bool) error {
	v := 0
	if active {
		v = 1
	}
	return s.updateUser(ctx, name, "set active", map[string]any{"active": v, "updated_at": s.clock.Now().UTC()})
}

// updateUser sets fields of the user name: domain.ErrNotFound when no row
// has that name, what names the operation in any other error.
func (s *Store) updateUser(ctx context.Context, name, what string, fields map[string]any) error {
	cols := slices.Sorted(maps.Keys(fields))
	args := make([]any, 0, len(cols)+1)
	for i, c := range cols {
		args = append(args, fields[c])
		cols[i] = c + " = ?"
	}
	n, err := s.execTx(ctx, "UPDATE users SET "+strings.Join(cols, ", ")+" WHERE username = ?", append(args, name)...)
	if err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	if n == 0 {
		return fmt.Errorf("user %q: %w", name, domain.ErrNotFound)
	}
	return nil
}

// ListUsers returns every user by name.
func (s *Store) ListUsers(ctx context.Context) ([]domain.User, error) {
	var rows []userRow
	if err := s.read.orm.WithContext(ctx).Order("username").Find(&rows).Error; err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	out := make([]domain.User, len(rows))
	for i, r := range rows {
		out[i] = r.toDomain()
	}
	return out, nil
}

// SetPasswordHash replaces a user's password hash old with hash (the
// login's rehash): domain.ErrConflict when the hash is no longer old, so
// a password change or a rotation made since the login read the row
// stands (run again after a 1213, the rehash finds it), and
// domain.ErrNotFound.
func (s *Store) SetPasswordHash(ctx context.Context, name, old, hash string) error {
	n, err := s.execTx(ctx, "UPDATE users SET password_hash = ?, updated_at = ? WHERE username = ? AND password_hash = ?",
		hash, s.clock.Now().UTC(), name, old)
	if err != nil {
		return fmt.Errorf("set password hash: %w", err)
	}
	if n == 0 {
		if _, err := s.GetUser(ctx, name); err != nil {
			return err
		}
		return fmt.Errorf("user %q changed during the rehash: %w", name, domain.ErrConflict)
	}
	return nil
}

// ChangePassword replaces a user's password hash and records when, so
// that tokens issued before are refused; a rotation's previous secret
// stops with it. domain.ErrNotFound.
func (s *Store) ChangePassword(ctx context.Context, name, hash string, at time.Time) error {
	at = at.UTC()
	return s.updateUser(ctx, name, "change password", map[string]any{"password_hash": hash, "password_changed_at": at, "updated_at": at,
		"previous_password_hash": nil, "previous_until": nil})
}

// RotatePassword writes rotation r to user name, provided its hash is
// still currentHash: every rotation and password change replaces the
// hash, so of two rotations read from one row (two replicas) only one
// passes, and the overlap the caller checked on that row still holds. domain.ErrConflict when the row
// changed in between, domain.ErrNotFound when there is no such user.
func (s *Store) RotatePassword(ctx context.Context, name, currentHash string, r domain.Rotation) error {
	at, until := r.RotatedAt.UTC(), r.PreviousUntil.UTC()
	q := "UPDATE users SET password_hash = ?, previous_password_hash = ?, rotated_at = ?, previous_until = ?, updated_at = ?"
	args := []any{r.NewHash, r.PreviousHash, at, until, at}
	if !r.TokensFrom.IsZero() {
		q += ", password_changed_at = ?"
		args = append(args, r.TokensFrom.UTC())
	}
	q += " WHERE username = ? AND password_hash = ?"
	args = append(args, name, currentHash)
	// Through execTx: on a Galera cluster two rotations of one user on two
	// nodes conflict at certification, and the later's 1213 would reach
	// the partner as unavailable; run again, it finds the hash replaced
	// and answers the conflict.
	n, err := s.execTx(ctx, q, args...)
	if err != nil {
		return fmt.Errorf("rotate password: %w", err)
	}
	if n == 0 {
		if _, err := s.GetUser(ctx, name); err != nil {
			return err
		}
		return fmt.Errorf("user %q changed during the rotation: %w", name, domain.ErrConflict)
	}
	return nil
}

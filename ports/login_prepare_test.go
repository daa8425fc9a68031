package ports_test

import (
	"context"
	"errors"
	"slices"
	"testing"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fakes"
)

// TestLoginPrepareAdmitsEveryStoredHash: before the first attempt, the
// hasher knows every stored hash, an inactive user's and an imported one
// included, so that an unknown name's comparison does the work of the
// dearest (PasswordHasher.Admit); a store that cannot list is
// ErrUnavailable.
func TestLoginPrepareAdmitsEveryStoredHash(t *testing.T) {
	users := fakes.NewUsers(
		domain.User{Name: "acme", PasswordHash: "h:current", Active: true},
		domain.User{Name: "legacy", PasswordHash: "old:imported", Active: false},
	)
	hasher, clock := &fakes.Hasher{}, fakes.NewClock(t0)
	login := newLogin(t, users, hasher, fakes.NewKeys(), clock)
	if err := login.Prepare(context.Background()); err != nil {
		t.Fatal(err)
	}
	if want := []string{"h:current", "old:imported"}; !slices.Equal(hasher.Admitted, want) {
		t.Errorf("admitted %q, want %q", hasher.Admitted, want)
	}
	down := newLogin(t, failingUsers{users}, &fakes.Hasher{}, fakes.NewKeys(), clock)
	if err := down.Prepare(context.Background()); !domain.IsKind(err, domain.ErrUnavailable) {
		t.Errorf("Prepare on a store that cannot list: %v, want ErrUnavailable", err)
	}
}

// failingUsers is a user store that cannot list.
type failingUsers struct{ *fakes.Users }

func (failingUsers) ListUsers(context.Context) ([]domain.User, error) {
	return nil, errors.New("connection refused")
}

package gormstore_test

import (
	"context"
	"errors"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestMigrationRotations: a database of the releases before migration
// 9, with a user in it, is upgraded on SQLite and MariaDB; the user has
// never rotated. A rotation is then stored and read back, a second one
// from the same read is a conflict (compare-and-set on the hash), and a
// password change ends the overlap.
func TestMigrationRotations(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	onReleasedBefore(t, 9, func(t *testing.T, r released) {
		now := time.Now().UTC()
		if _, err := r.db.ExecContext(ctx, "INSERT INTO users (username, password_hash, nit, active, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)",
			"acme", "$2a$10$old", "900123456", now, now); err != nil {
			t.Fatal(err)
		}
		_ = r.old.Close()

		st := openStore(t, r.driver, r.dsn, cat, nil)
		if applied, err := st.Migrate(ctx); err != nil || !slices.Contains(applied, 9) {
			t.Fatalf("Migrate = %v, %v; want it to apply 9", applied, err)
		}
		u, err := st.GetUser(ctx, "acme")
		if err != nil || u.PreviousPasswordHash != "" || !u.RotatedAt.IsZero() || !u.PreviousUntil.IsZero() {
			t.Fatalf("after the upgrade: %+v, %v", u, err)
		}
		at := now.Add(time.Second).Truncate(time.Microsecond)
		rot, err := u.Rotate("$2a$10$new", at, time.Hour)
		if err != nil {
			t.Fatal(err)
		}
		if err := st.RotatePassword(ctx, "acme", u.PasswordHash, rot); err != nil {
			t.Fatal(err)
		}
		got, _ := st.GetUser(ctx, "acme")
		if got.PasswordHash != "$2a$10$new" || got.PreviousPasswordHash != "$2a$10$old" || !got.RotatedAt.Equal(at) || !got.PreviousUntil.Equal(at.Add(time.Hour)) {
			t.Fatalf("after RotatePassword: %+v", got)
		}
		if err := st.RotatePassword(ctx, "acme", u.PasswordHash, rot); !errors.Is(err, domain.ErrConflict) {
			t.Fatalf("a second rotation from the same read: %v, want ErrConflict", err)
		}
		if err := st.RotatePassword(ctx, "nobody", "x", rot); !errors.Is(err, domain.ErrNotFound) {
			t.Fatalf("a rotation of no user: %v, want ErrNotFound", err)
		}
		if err := st.ChangePassword(ctx, "acme", "$2a$10$passwd", at.Add(time.Minute)); err != nil {
			t.Fatal(err)
		}
		if got, _ := st.GetUser(ctx, "acme"); got.PreviousPasswordHash != "" || got.PreviousValid(at.Add(2*time.Minute)) || got.RotatedAt.IsZero() {
			t.Fatalf("users passwd did not end the overlap: %+v", got)
		}
	})
}

package gormstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// TestMigrationPasswordChanges: a database of the releases before
// migration 5, with a user in it, is upgraded on SQLite and MariaDB; the
// user keeps its hash and has never changed its password (its tokens
// stay valid), and a change is recorded afterwards.
func TestMigrationPasswordChanges(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	onReleasedBefore(t, 5, func(t *testing.T, r released) {
		now := time.Now().UTC()
		// Written as the earlier releases did: no password_changed_at column.
		if _, err := r.db.ExecContext(ctx, "INSERT INTO users (username, password_hash, nit, active, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)",
			"acme", "$2a$10$old", "900123456", now, now); err != nil {
			t.Fatal(err)
		}
		_ = r.old.Close()

		st := openStore(t, r.driver, r.dsn, cat, nil)
		if applied, err := st.Migrate(ctx); err != nil || !slices.Contains(applied, 5) {
			t.Fatalf("Migrate = %v, %v; want it to apply 5", applied, err)
		}
		u, err := st.GetUser(ctx, "acme")
		if err != nil || u.PasswordHash != "$2a$10$old" || !u.PasswordChangedAt.IsZero() {
			t.Fatalf("after the upgrade: %+v, %v", u, err)
		}
		at := now.Add(time.Second).Truncate(time.Microsecond)
		if err := st.ChangePassword(ctx, "acme", "$2a$10$new", at); err != nil {
			t.Fatal(err)
		}
		if u, _ := st.GetUser(ctx, "acme"); !u.PasswordChangedAt.Equal(at) || u.PasswordHash != "$2a$10$new" {
			t.Fatalf("after ChangePassword: %+v", u)
		}
	})
}

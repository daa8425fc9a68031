package gormstore_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMigrationPasswordChanges: a database of the releases before
// migration 5, with a user in it, is upgraded on SQLite and MariaDB; the
// user keeps its hash and has never changed its password (its tokens
// stay valid), and a change is recorded afterwards.
func TestMigrationPasswordChanges(t *testing.T) {
	ctx := context.Background()
	cat := domain.DefaultCatalogue()
	var before []gormstore.Migration
	for _, m := range gormstore.Migrations() {
		if m.Version < 5 {
			before = append(before, m)
		}
	}
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		t.Run(driver, func(t *testing.T) {
			d := storetest.SQLitePath(t)
			if driver == gormstore.MySQL {
				d = storetest.MustCreateDatabase(t)
			}
			old := openStore(t, driver, d, cat, before)
			if _, err := old.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			now := time.Now().UTC()
			// Written as the earlier releases did: no password_changed_at column.
			db, err := storetest.OpenSQL(driver, d)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			if _, err := db.ExecContext(ctx, "INSERT INTO users (username, password_hash, nit, active, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)",
				"acme", "$2a$10$old", "900123456", now, now); err != nil {
				t.Fatal(err)
			}
			_ = old.Close()

			st := openStore(t, driver, d, cat, nil)
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
}

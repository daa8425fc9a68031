package gormstore_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/storetest"
)

// TestRotationLosesCertificationGalera: two rotations of one partner's
// secret read from one row, through replicas on two nodes (a client's
// retry that lands on another replica). Node 1's commits while node 2's
// UPDATE waits for its COMMIT, so node 2's loses certification (1213)
// every time; run again, it finds the hash replaced and answers
// domain.ErrConflict (the partner's 409: ports.Rotation answers
// rotation_in_progress when the winner's overlap runs), not the 1213
// (which the rotation answers as unavailable, a 503).
func TestRotationLosesCertificationGalera(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsns := storetest.MustCreateGaleraDatabase(t)
	st := storetest.MustOpen(t, gormstore.MySQL, dsns[1], gormstore.Options{})
	now := time.Now().UTC().Truncate(time.Second)
	if err := st.CreateUser(ctx, domain.User{Name: "acme", PasswordHash: "$2a$10$old", Active: true, CreatedAt: now, UpdatedAt: now}); err != nil {
		t.Fatal(err)
	}
	u, err := st.GetUser(ctx, "acme")
	if err != nil {
		t.Fatal(err)
	}
	rot, err := u.Rotate("$2a$10$node2", now.Add(time.Second), time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	other := nodeSQL(t, dsns[0])
	// Node 1 serves the user's row before its rotation runs (a causal
	// read: the DSN's wsrep_sync_wait=1); an UPDATE there while the row's
	// INSERT is still being applied loses to the applier (1213 on node 1).
	var hash string
	if err := other.QueryRowContext(ctx, "SELECT password_hash FROM users WHERE username = ?", "acme").Scan(&hash); err != nil || hash != u.PasswordHash {
		t.Fatalf("the user on node 1: %q, %v", hash, err)
	}
	// The other replica's rotation, through node 1, commits first.
	done := nodeFirst(t, st, other, "UPDATE users SET password_hash = ? WHERE username = ? AND password_hash = ?",
		"$2a$10$node1", "acme", u.PasswordHash)
	if err := st.RotatePassword(ctx, "acme", u.PasswordHash, rot); !errors.Is(err, domain.ErrConflict) {
		t.Fatalf("node 2's rotation after node 1's committed during it: %v, want domain.ErrConflict", err)
	}
	done()
	if err := other.QueryRowContext(ctx, "SELECT password_hash FROM users WHERE username = ?", "acme").Scan(&hash); err != nil || hash != "$2a$10$node1" {
		t.Errorf("the hash on node 1 = %q (%v), want node 1's rotation's", hash, err)
	}
}

// TestOperatorCommandsLoseCertificationGalera: users and back-office
// clients added, changed or removed through two nodes at once (two
// operators, or a command beside a replica's write): node 1's write
// commits while node 2's waits for its COMMIT, so node 2's loses
// certification (1213) every time, runs again, and answers what the
// command would have answered had it come second: the name taken, the
// change made, the client gone. Never the raw 1213.
func TestOperatorCommandsLoseCertificationGalera(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsns := storetest.MustCreateGaleraDatabase(t)
	st := storetest.MustOpen(t, gormstore.MySQL, dsns[1], gormstore.Options{})
	other := nodeSQL(t, dsns[0])
	now := time.Now().UTC().Truncate(time.Second)
	seen := func(t *testing.T, q string, args ...any) {
		t.Helper()
		var n int
		if err := other.QueryRowContext(ctx, q, args...).Scan(&n); err != nil || n != 1 {
			t.Fatalf("node 1: %s: %d, %v", q, n, err)
		}
	}

	t.Run("users add: the name taken", func(t *testing.T) {
		done := nodeFirst(t, st, other, "INSERT INTO users (username, password_hash, nit, active, created_at, updated_at) VALUES (?, ?, ?, 1, ?, ?)",
			"zeta", "$2a$10$node1", "", now, now)
		err := st.CreateUser(ctx, domain.User{Name: "zeta", PasswordHash: "$2a$10$node2", Active: true, CreatedAt: now, UpdatedAt: now})
		if !errors.Is(err, domain.ErrConflict) {
			t.Errorf("CreateUser on node 2 after node 1 added the name: %v, want domain.ErrConflict", err)
		}
		done()
	})
	t.Run("users deactivate: the change made", func(t *testing.T) {
		if err := st.CreateUser(ctx, domain.User{Name: "eta", PasswordHash: "$2a$10$x", Active: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		seen(t, "SELECT COUNT(*) FROM users WHERE username = ?", "eta")
		done := nodeFirst(t, st, other, "UPDATE users SET nit = ? WHERE username = ?", "900123456-8", "eta")
		if err := st.SetActive(ctx, "eta", false); err != nil {
			t.Errorf("SetActive on node 2 after node 1 changed the row: %v", err)
		}
		done()
		seen(t, "SELECT COUNT(*) FROM users WHERE username = ? AND active = 0 AND nit = ?", "eta", "900123456-8")
	})
	t.Run("a login's rehash beside users passwd: the change stands", func(t *testing.T) {
		if err := st.CreateUser(ctx, domain.User{Name: "theta", PasswordHash: "$2a$10$cost10", Active: true, CreatedAt: now, UpdatedAt: now}); err != nil {
			t.Fatal(err)
		}
		seen(t, "SELECT COUNT(*) FROM users WHERE username = ?", "theta")
		done := nodeFirst(t, st, other, "UPDATE users SET password_hash = ? WHERE username = ?", "$2a$12$changed", "theta")
		if err := st.SetPasswordHash(ctx, "theta", "$2a$10$cost10", "$2a$12$rehashed"); !errors.Is(err, domain.ErrConflict) {
			t.Errorf("the rehash on node 2 after node 1's change: %v, want domain.ErrConflict", err)
		}
		done()
		seen(t, "SELECT COUNT(*) FROM users WHERE username = ? AND password_hash = ?", "theta", "$2a$12$changed")
	})
	t.Run("backoffice add: the name taken", func(t *testing.T) {
		done := nodeFirst(t, st, other, "INSERT INTO backoffice_clients (name, secret_sha256, created_at) VALUES (?, ?, ?)",
			"ops", strings.Repeat("1", 64), now)
		err := st.AddBackofficeClient(ctx, ports.BackofficeClient{Name: "ops", CreatedAt: now}, strings.Repeat("2", 64))
		if !errors.Is(err, domain.ErrConflict) {
			t.Errorf("AddBackofficeClient on node 2 after node 1 added the name: %v, want domain.ErrConflict", err)
		}
		done()
	})
	t.Run("backoffice remove: the client gone", func(t *testing.T) {
		if err := st.AddBackofficeClient(ctx, ports.BackofficeClient{Name: "audit", CreatedAt: now}, strings.Repeat("3", 64)); err != nil {
			t.Fatal(err)
		}
		seen(t, "SELECT COUNT(*) FROM backoffice_clients WHERE name = ?", "audit")
		done := nodeFirst(t, st, other, "DELETE FROM backoffice_clients WHERE name = ?", "audit")
		if err := st.RemoveBackofficeClient(ctx, "audit"); !errors.Is(err, domain.ErrNotFound) {
			t.Errorf("RemoveBackofficeClient on node 2 after node 1 removed it: %v, want domain.ErrNotFound", err)
		}
		done()
	})
}

package gormstore_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
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

package gormstore_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// TestSweepWritesLoseCertificationGalera: the sweeps of replicas started
// together on two nodes take the same rows (and two operators' reports
// purge the same reports). Here node 1 writes them while
// node 2's same write waits for its COMMIT, so node 2's loses
// certification (1213) every time; each of the sweep's writes runs again
// and finds the other's work done, instead of counting the sweep
// incomplete (DisbursementdSweepFailing sums every replica's failures).
func TestSweepWritesLoseCertificationGalera(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	dsns := storetest.MustCreateGaleraDatabase(t)
	st := storetest.MustOpen(t, gormstore.MySQL, dsns[1], gormstore.Options{})
	other, node2 := nodeSQL(t, dsns[0]), nodeSQL(t, dsns[1])
	old := time.Now().UTC().Add(-48 * time.Hour)
	exec := func(t *testing.T, q string, args ...any) {
		t.Helper()
		if _, err := other.ExecContext(ctx, q, args...); err != nil {
			t.Fatalf("node 1: %s: %v", q, err)
		}
	}
	first := func(t *testing.T, q string, args ...any) func() int32 { return nodeFirst(t, st, other, q, args...) }
	names := func(prefix string) []string {
		return []string{prefix + "-1.pdf", prefix + "-2.pdf", prefix + "-3.pdf"}
	}
	in := func(n []string) (string, []any) {
		args := make([]any, len(n))
		for i, s := range n {
			args[i] = s
		}
		return "(" + strings.TrimSuffix(strings.Repeat("?, ", len(n)), ", ") + ")", args
	}
	count := func(t *testing.T, q string, args ...any) int {
		t.Helper()
		var n int
		if err := other.QueryRowContext(ctx, q, args...).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}

	t.Run("MarkChecked", func(t *testing.T) {
		files := names("checked")
		for _, f := range files {
			exec(t, "INSERT INTO upload_files (file_name, state, created_at, checked) VALUES (?, 'claimed', ?, 0)", f, old)
		}
		list, args := in(files)
		done := first(t, "UPDATE upload_files SET checked = 1 WHERE file_name IN "+list, args...)
		if err := st.MarkChecked(ctx, files); err != nil {
			t.Errorf("MarkChecked on node 2: %v", err)
		}
		done()
		if n := count(t, "SELECT COUNT(*) FROM upload_files WHERE checked = 0 AND file_name IN "+list, args...); n != 0 {
			t.Errorf("%d reservations left unchecked", n)
		}
	})
	t.Run("PurgeTombstones", func(t *testing.T) {
		files := names("tomb")
		for _, f := range files {
			exec(t, "INSERT INTO upload_files (file_name, state, created_at, checked) VALUES (?, 'tombstone', ?, 1)", f, old)
		}
		list, args := in(files)
		done := first(t, "DELETE FROM upload_files WHERE file_name IN "+list, args...)
		n, err := st.PurgeTombstones(ctx, time.Now(), 10, true)
		if err != nil || n != 0 {
			t.Errorf("PurgeTombstones on node 2 = %d, %v; want 0 (node 1 took them), nil", n, err)
		}
		done()
		if n := count(t, "SELECT COUNT(*) FROM upload_files WHERE file_name IN "+list, args...); n != 0 {
			t.Errorf("%d tombstones left", n)
		}
	})
	t.Run("PurgeKeys", func(t *testing.T) {
		var ids []any
		for i := range 3 {
			exec(t, "INSERT INTO idempotency_keys (partner_user, key_hash, payload_sha256, state, nonce, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
				"acme", fmt.Sprintf("%064d", i), strings.Repeat("p", 64), string(domain.KeyDone), fmt.Sprintf("%032d", i), old, old.Add(time.Hour))
		}
		rows, err := other.QueryContext(ctx, "SELECT id FROM idempotency_keys")
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				t.Fatal(err)
			}
			ids = append(ids, id)
		}
		_ = rows.Close()
		if len(ids) != 3 {
			t.Fatalf("%d records, want 3", len(ids))
		}
		done := first(t, "DELETE FROM idempotency_keys WHERE id IN (?, ?, ?)", ids...)
		p, e, err := st.PurgeKeys(ctx, time.Now(), time.Now(), 10, true)
		if err != nil || p != 0 || e != 0 {
			t.Errorf("PurgeKeys on node 2 = %d, %d, %v; want 0, 0 (node 1 took them), nil", p, e, err)
		}
		done()
		if n := count(t, "SELECT COUNT(*) FROM idempotency_keys"); n != 0 {
			t.Errorf("%d records left", n)
		}
	})
	t.Run("DeleteReports (reports purge)", func(t *testing.T) {
		a := storeWith(t, st, domain.DefaultCatalogue(), "CR-PURGE-0001", nil)
		b := storeWith(t, st, domain.DefaultCatalogue(), "CR-PURGE-0002", nil)
		if n := count(t, "SELECT COUNT(*) FROM "+gormstore.StagingTable+" WHERE id IN (?, ?)", a, b); n != 2 {
			t.Fatalf("%d of the two rows on node 1", n)
		}
		// Another purge, through node 1, takes them first.
		done := first(t, "DELETE FROM "+gormstore.StagingTable+" WHERE id IN (?, ?)", a, b)
		n, err := st.DeleteReports(ctx, []domain.FileRow{{ID: a}, {ID: b}})
		if err != nil || n != 0 {
			t.Errorf("DeleteReports on node 2 = %d, %v; want 0 (node 1 took them), nil", n, err)
		}
		done()
		if n := count(t, "SELECT COUNT(*) FROM "+gormstore.StagingTable+" WHERE id IN (?, ?)", a, b); n != 0 {
			t.Errorf("%d rows left", n)
		}
	})
	t.Run("TombstoneFile of a reservation without its row", func(t *testing.T) {
		f := "orphan-1.pdf"
		exec(t, "INSERT INTO upload_files (file_name, state, created_at, checked) VALUES (?, 'claimed', ?, 1)", f, old)
		// Node 2 serves the reservation first (a causal read): its
		// tombstone INSERT does not wait for the node to catch up, and
		// one that misses the row loses certification before the UPDATE.
		var n int
		if err := node2.QueryRowContext(ctx, "SELECT COUNT(*) FROM upload_files WHERE file_name = ?", f).Scan(&n); err != nil || n != 1 {
			t.Fatalf("the reservation on node 2: %d, %v", n, err)
		}
		done := first(t, "UPDATE upload_files SET state = 'tombstone' WHERE file_name = ? AND state = 'claimed'", f)
		ok, err := st.TombstoneFile(ctx, f)
		if err != nil || ok {
			t.Errorf("TombstoneFile on node 2 = %v, %v; want false (node 1's sweep took it; the file is its to remove), nil", ok, err)
		}
		done()
		if n := count(t, "SELECT COUNT(*) FROM upload_files WHERE file_name = ? AND state = 'tombstone'", f); n != 1 {
			t.Errorf("%d tombstones of %s, want 1", n, f)
		}
	})
}

package gormstore_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/storetest"
)

// TestSQLiteSideFilesTakeTheDatabaseMode: the -wal and -shm files, which
// hold rows not yet checkpointed and their index, get the database file's
// mode, not 0666 less the umask (they were 0644 beside a 0640 database).
func TestSQLiteSideFilesTakeTheDatabaseMode(t *testing.T) {
	t.Parallel()
	old := syscall.Umask(0o022) // the usual umask, under which the driver made them 0644
	defer syscall.Umask(old)
	for _, mode := range []os.FileMode{0o640, 0o600} {
		path := filepath.Join(t.TempDir(), "d.db")
		if mode != 0o640 { // an operator's own mode on an existing file
			if err := os.WriteFile(path, nil, mode); err != nil {
				t.Fatal(err)
			}
		}
		st, err := gormstore.Open(gormstore.SQLite, path, storetest.Options(gormstore.SQLite), domain.DefaultCatalogue())
		if err != nil {
			t.Fatal(err)
		}
		if _, err := st.Migrate(t.Context()); err != nil { // writes, so the -wal exists
			t.Fatal(err)
		}
		for _, f := range []string{path, path + "-wal", path + "-shm"} {
			fi, err := os.Stat(f)
			if err != nil {
				t.Fatalf("%s: %v", filepath.Base(f), err)
			}
			if fi.Mode().Perm() != mode {
				t.Errorf("%s is %v; the database is %v", filepath.Base(f), fi.Mode().Perm(), mode)
			}
		}
		if err := st.Close(); err != nil {
			t.Fatal(err)
		}
	}
}

// TestSQLiteWriterPragmas: the reports' writing connection has its
// larger page cache, a reader keeps SQLite's, and every connection,
// the login throttle's too (it commits, so it may checkpoint), has the
// less frequent checkpoint.
func TestSQLiteWriterPragmas(t *testing.T) {
	t.Parallel()
	st, err := gormstore.Open(gormstore.SQLite, filepath.Join(t.TempDir(), "d.db"), storetest.Options(gormstore.SQLite), domain.DefaultCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	th, err := gormstore.NewThrottle(st, gormstore.ThrottleOptions{Conns: 1, MaxKeys: 10})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = th.Close() })
	for _, c := range []struct {
		name        string
		pool        *sql.DB
		cache, ckpt int64
	}{
		{"writer", gormstore.Pool(st), -16384, 4000},
		{"reader", gormstore.LookupPool(st), -2000, 4000},
		{"throttle", gormstore.ThrottlePool(th), -2000, 4000},
	} {
		var cache, ckpt int64
		if err := c.pool.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if err := c.pool.QueryRowContext(t.Context(), "PRAGMA wal_autocheckpoint").Scan(&ckpt); err != nil {
			t.Fatal(err)
		}
		if cache != c.cache || ckpt != c.ckpt {
			t.Errorf("%s: cache_size %d, wal_autocheckpoint %d; want %d, %d", c.name, cache, ckpt, c.cache, c.ckpt)
		}
	}
}

package gormstore_test

import (
	"database/sql"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/ncruces/go-sqlite3"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/gormstore/internal/walvfs"
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
// less frequent checkpoint and the full sync the WAL's gathering VFS
// relies on.
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
		var cache, ckpt, sync int64
		if err := c.pool.QueryRowContext(t.Context(), "PRAGMA cache_size").Scan(&cache); err != nil {
			t.Fatal(err)
		}
		if err := c.pool.QueryRowContext(t.Context(), "PRAGMA synchronous").Scan(&sync); err != nil {
			t.Fatal(err)
		}
		if sync != 2 {
			t.Errorf("%s: synchronous %d, want 2 (FULL)", c.name, sync)
		}
		if err := c.pool.QueryRowContext(t.Context(), "PRAGMA wal_autocheckpoint").Scan(&ckpt); err != nil {
			t.Fatal(err)
		}
		if cache != c.cache || ckpt != c.ckpt {
			t.Errorf("%s: cache_size %d, wal_autocheckpoint %d; want %d, %d", c.name, cache, ckpt, c.cache, c.ckpt)
		}
	}
}

// TestSQLiteCommitsGatherTheWAL: the store's connections open SQLite
// through walvfs, whose WAL files write a commit's frames in one call,
// and its DSN asks for what walvfs needs to gather (full sync); a
// rollback runs the hook, and a connection's close the callback, that
// drop what its transaction gathered. Not parallel: it reads the
// process's counts.
func TestSQLiteCommitsGatherTheWAL(t *testing.T) {
	dsn := gormstore.SQLiteDSN("/x/d.db", 0)
	q, err := url.ParseQuery(dsn[strings.IndexByte(dsn, '?')+1:])
	if err != nil {
		t.Fatal(err)
	}
	if q.Get("vfs") != walvfs.Name || !walvfs.Gathers(q) {
		t.Fatalf("SQLiteDSN %s: vfs %q, gathers %v; want %q, true", dsn, q.Get("vfs"), walvfs.Gathers(q), walvfs.Name)
	}
	st, err := gormstore.Open(gormstore.SQLite, filepath.Join(t.TempDir(), "d.db"), storetest.Options(gormstore.SQLite), domain.DefaultCatalogue())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(t.Context()); err != nil {
		t.Fatal(err)
	}
	w := gormstore.Pool(st) // the reports' writer
	if _, err := w.ExecContext(t.Context(), `CREATE TABLE probe (id INTEGER PRIMARY KEY, a TEXT, b TEXT)`); err != nil {
		t.Fatal(err)
	}
	if _, err := w.ExecContext(t.Context(), `CREATE INDEX probe_a ON probe (a)`); err != nil {
		t.Fatal(err)
	}
	s0 := walvfs.Stats()
	const n = 20
	for i := range n {
		if _, err := w.ExecContext(t.Context(), `INSERT INTO probe (a, b) VALUES (?, ?)`, strings.Repeat("a", i), strings.Repeat("b", 100)); err != nil {
			t.Fatal(err)
		}
	}
	s1 := walvfs.Stats()
	asked, calls := s1.Asked-s0.Asked, s1.Calls-s0.Calls
	if asked < 4*n || calls > n+1 {
		t.Fatalf("%d commits through the writer: %d writes asked of the WAL, %d calls made; want at least %d asked and at most %d calls", n, asked, calls, 4*n, n+1)
	}
	// Every rollback runs walvfs's hook, which drops what the transaction
	// gathered (walvfs's own tests show the drop).
	rollbacks0 := walvfs.Stats().Rollbacks
	tx, err := w.BeginTx(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tx.ExecContext(t.Context(), `INSERT INTO probe (a, b) VALUES ('x', 'y')`); err != nil {
		t.Fatal(err)
	}
	if err := tx.Rollback(); err != nil {
		t.Fatal(err)
	}
	if walvfs.Stats().Rollbacks == rollbacks0 {
		t.Fatal("a rollback on the store's writer did not run walvfs's hook")
	}
	closings0 := walvfs.Stats().Closings
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if walvfs.Stats().Closings == closings0 {
		t.Fatal("closing the store did not run walvfs's close callback on its connections")
	}
}

// TestSQLitePathsAreNotURIs: a store.dsn path with characters a SQLite URI
// reads as other than the path ('?' its parameters, '#' a fragment, '%'
// an escape, a control character that stops the driver reading the
// parameters) opens the file it names, in WAL mode with the full sync and
// the busy timeout, and gathers the WAL. Before, "a?_pragma=
// synchronous(NORMAL)&b.db" opened "a", and "a#b.db" opened "a" without
// any of the pragmas.
func TestSQLitePathsAreNotURIs(t *testing.T) {
	t.Parallel()
	for _, name := range []string{
		"a?_pragma=synchronous(NORMAL)&b.db",
		"a#b.db",
		"100%off.db",
		"100%25.db",
		"tab\tname.db",
		"plain name.db",
	} {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			sqlitePathIsNotAURI(t, dir, filepath.Join(dir, name), name)
		})
	}
	// A path starting "//" is one file on Linux; in a URI it starts the
	// authority ("//localhost/x" opened "/x").
	t.Run("double slash", func(t *testing.T) {
		dir := t.TempDir()
		sqlitePathIsNotAURI(t, dir, "/"+filepath.Join(dir, "d.db"), "d.db")
		// "//localhost"+dir names a directory that does not exist; read as
		// a URI's authority it named dir, which does.
		c, err := sqlite3.Open(gormstore.SQLiteDSN("//localhost"+filepath.Join(dir, "d.db"), 0))
		switch {
		case err == nil:
			_ = c.Close()
			t.Errorf("//localhost%s opened: the path was read as a URI's authority, naming %s", filepath.Join(dir, "d.db"), filepath.Join(dir, "d.db"))
		case !errors.Is(err, sqlite3.CANTOPEN):
			t.Errorf("//localhost%s: %v; want SQLite unable to open a file that does not exist", filepath.Join(dir, "d.db"), err)
		}
	})
}

// sqlitePathIsNotAURI opens a store at path, which is dir's file name.
func sqlitePathIsNotAURI(t *testing.T, dir, path, name string) {
	st, err := gormstore.Open(gormstore.SQLite, path, storetest.Options(gormstore.SQLite), domain.DefaultCatalogue())
	if err != nil {
		t.Fatalf("%q: %v", name, err)
	}
	closed := false
	defer func() { // a failed step leaves no store open
		if !closed {
			_ = st.Close()
		}
	}()
	if _, err := st.Migrate(t.Context()); err != nil {
		t.Fatalf("%q: migrate: %v", name, err)
	}
	var mode string
	var sync, busy int64
	pool := gormstore.Pool(st)
	if err := pool.QueryRowContext(t.Context(), "PRAGMA journal_mode").Scan(&mode); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRowContext(t.Context(), "PRAGMA synchronous").Scan(&sync); err != nil {
		t.Fatal(err)
	}
	if err := pool.QueryRowContext(t.Context(), "PRAGMA busy_timeout").Scan(&busy); err != nil {
		t.Fatal(err)
	}
	// What SQLite itself read of the writer's URI, as walvfs reads it.
	conn, err := pool.Conn(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	var params url.Values
	if err := conn.Raw(func(dc any) error {
		params = dc.(interface{ Raw() *sqlite3.Conn }).Raw().Filename("main").URIParameters()
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	_ = conn.Close()
	if !walvfs.Gathers(params) || params.Get(walvfs.GatherParam) != "1" {
		t.Errorf("%q: SQLite read the parameters %v: not gathered", name, params)
	}
	closed = true
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if mode != "wal" || sync != 2 || busy != storetest.Options(gormstore.SQLite).BusyTimeout.Milliseconds() {
		t.Errorf("%q: journal_mode %s, synchronous %d, busy_timeout %d; want wal, 2, %d", name, mode, sync, busy,
			storetest.Options(gormstore.SQLite).BusyTimeout.Milliseconds())
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		names = append(names, e.Name())
	}
	if !slices.Contains(names, name) || slices.ContainsFunc(names, func(n string) bool { return !strings.HasPrefix(n, name) }) {
		t.Errorf("%q: the directory holds %q; want the database under its own name (and its -wal, -shm)", name, names)
	}
}

// TestSQLiteLongPaths: SQLite names a database's files by its absolute
// path and a suffix ("-journal", "-wal", "-shm"), and the driver reads at
// most 1,024 bytes of a name: a longer one panicked at the first
// connection. The longest path SQLite can hold opens and stores; one
// byte more is refused by Open, naming store.dsn and the limit.
func TestSQLiteLongPaths(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Directories of 200 bytes until the path leaves room for a file name.
	deep := dir
	for len(deep)+201 < gormstore.SQLiteMaxPath-20 {
		deep = filepath.Join(deep, strings.Repeat("d", 200))
	}
	if err := os.MkdirAll(deep, 0o750); err != nil {
		t.Fatal(err)
	}
	name := func(n int) string { // a path of n bytes in deep
		return filepath.Join(deep, strings.Repeat("f", n-len(deep)-1))
	}
	longest := name(gormstore.SQLiteMaxPath)
	st, err := gormstore.Open(gormstore.SQLite, longest, storetest.Options(gormstore.SQLite), domain.DefaultCatalogue())
	if err != nil {
		t.Fatalf("a path of %d bytes: %v", len(longest), err)
	}
	_, err = st.Migrate(t.Context())
	if cerr := st.Close(); err != nil || cerr != nil {
		t.Fatalf("a path of %d bytes: migrate %v, close %v", len(longest), err, cerr)
	}
	for _, p := range []string{name(gormstore.SQLiteMaxPath + 1), name(gormstore.SQLiteMaxPath + 30)} {
		st, err := gormstore.Open(gormstore.SQLite, p, storetest.Options(gormstore.SQLite), domain.DefaultCatalogue())
		if err == nil {
			_ = st.Close()
			t.Errorf("a path of %d bytes opened; want it refused", len(p))
			continue
		}
		want := fmt.Sprintf("store.dsn: the SQLite path is %d bytes long", len(p))
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), strconv.Itoa(gormstore.SQLiteMaxPath)) {
			t.Errorf("a path of %d bytes: %v; want %q and the limit", len(p), err, want)
		}
		if _, err := os.Stat(p); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("a refused path of %d bytes left a file: %v", len(p), err)
		}
	}
}

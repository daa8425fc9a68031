package walvfs_test

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"

	"github.com/lender/disbursementd/adapters/gormstore/internal/walvfs"
)

func init() { walvfs.Register() }

// dsn is a SQLite URI for path through walvfs, asking for its WAL to be
// gathered, with the service's own pragmas (WAL, synchronous sync,
// immediate write transactions) and extra ones.
func dsn(path, sync string, extra ...string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(5000)")
	q.Add("_pragma", "synchronous("+sync+")")
	for _, p := range extra {
		q.Add("_pragma", p)
	}
	q.Set("_txlock", "immediate")
	q.Set("vfs", walvfs.Name)
	q.Set(walvfs.GatherParam, "1")
	return "file:" + path + "?" + q.Encode()
}

// openDB opens dsn as the service does (gormstore's openSQLiteDB): every
// connection with walvfs's rollback hook.
func openDB(dsn string) (*sql.DB, error) {
	return driver.Open(dsn, func(c *sqlite3.Conn) error {
		walvfs.Attach(c)
		return nil
	}, walvfs.Closing)
}

func open(t *testing.T, dsn string) *sql.DB {
	t.Helper()
	db, err := openDB(dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// schema is a table with a few indexes, so that a row lands on several
// pages, as a report does.
const schema = `CREATE TABLE r (id INTEGER PRIMARY KEY, a TEXT, b TEXT, c TEXT, pad TEXT);
CREATE INDEX r_a ON r (a); CREATE INDEX r_b ON r (b); CREATE INDEX r_c ON r (c)`

func insert(ctx context.Context, db *sql.DB, i int) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `INSERT INTO r (id, a, b, c, pad) VALUES (?, ?, ?, ?, ?)`,
		i, strconv.Itoa(i*7919%100003), strconv.Itoa(i), strconv.Itoa(i*31%1009), strings.Repeat("x", 300))
	if err != nil {
		_ = tx.Rollback()
		return err
	}
	return tx.Commit()
}

func TestGathers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		query string
		want  bool
	}{
		{"_pragma=synchronous(FULL)", true},
		{"_pragma=synchronous(full)&_pragma=journal_mode(WAL)", true},
		{"_pragma=synchronous(EXTRA)", true},
		{"_pragma=synchronous=2", true},
		{"_pragma=synchronous(3)", true},
		{"_pragma=synchronous(NORMAL)", false},
		{"_pragma=synchronous(OFF)", false},
		{"_pragma=synchronous(1)", false},
		{"_pragma=synchronous(on)", false},                               // on is NORMAL
		{"_pragma=journal_mode(WAL)", false},                             // no level: this build's default in WAL mode is NORMAL
		{"_pragma=synchronous(FULL)&_pragma=synchronous(NORMAL)", false}, // the last one is what the connection has
		{"_pragma=synchronous(NORMAL)&_pragma=synchronous(FULL)", true},
		{"_pragma=synchronous(FULL)&psow=0", false},
		{"_pragma=synchronous(FULL)&psow=off", false},
		{"_pragma=synchronous(FULL)&psow=1", true},
		{"_pragma=main.synchronous(FULL)", true},
		{"_pragma=MAIN+.+SYNCHRONOUS+%3D+FULL", true},
		{"_pragma=synchronous(FULL)&_pragma=foreign_keys(1)&_pragma=busy_timeout(5000)", true},
		// Forms that do not set main's level as read here, or may lower
		// it after: not gathered (the fourth review ran each and found
		// the connection at NORMAL).
		{"_pragma=temp.synchronous(FULL)", false},
		{"_pragma=synchronous(FULL)&_pragma=temp.synchronous(NORMAL)", false},
		{"_pragma=synchronous(FULL)&_pragma=/**/synchronous(NORMAL)", false},
		{"_pragma=synchronous(FULL)&_pragma=foreign_keys(1)%3B+PRAGMA+synchronous=NORMAL", false},
		{"_pragma=synchronous(FULL)&_pragma=foreign_keys(1)%3BPRAGMA%20synchronous%3Doff", false},
		{"_pragma=synchronous(FULL)&_pragma=foreign_keys(1)+--+x", false},
		{"_pragma=synchronous('full')", false},
		{`_pragma="main".synchronous(FULL)`, false},
		{`_pragma=main."synchronous"(FULL)`, false},
		{"_pragma=synchronous", false},
	} {
		q, err := url.ParseQuery(c.query)
		if err != nil {
			t.Fatal(err)
		}
		if got := walvfs.Gathers(q); got != c.want {
			t.Errorf("%s: gathers %v, want %v", c.query, got, c.want)
		}
	}
}

// TestACommitIsOneWrite: each commit's frames (about two writes a page
// touched) reach the file in one call, and a second connection reads
// every commit's row the moment it is committed. Not parallel: it reads
// the process's counts.
func TestACommitIsOneWrite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	w := open(t, dsn(path, "FULL"))
	w.SetMaxOpenConns(1)
	r := open(t, dsn(path, "FULL"))
	r.SetMaxOpenConns(1)
	if _, err := w.ExecContext(ctx, schema); err != nil {
		t.Fatal(err)
	}
	s0 := walvfs.Stats()
	const n = 200
	for i := 1; i <= n; i++ {
		if err := insert(ctx, w, i); err != nil {
			t.Fatalf("commit %d: %v", i, err)
		}
		var got int
		if err := r.QueryRowContext(ctx, `SELECT COUNT(*) FROM r WHERE b = ?`, strconv.Itoa(i)).Scan(&got); err != nil || got != 1 {
			t.Fatalf("after commit %d the other connection reads %d rows of it (%v)", i, got, err)
		}
	}
	s1 := walvfs.Stats()
	asked, calls := s1.Asked-s0.Asked, s1.Calls-s0.Calls
	t.Logf("%d commits: SQLite asked for %d writes to the WAL, %d reached the file", n, asked, calls)
	if asked < 8*n {
		t.Fatalf("SQLite asked for %d writes in %d commits: fewer than the pages a row touches, the WAL was not this VFS's", asked, n)
	}
	if calls > 2*n {
		t.Fatalf("%d calls for %d commits: the writes were not gathered", calls, n)
	}
	var total int
	if err := r.QueryRowContext(ctx, `SELECT COUNT(*) FROM r`).Scan(&total); err != nil || total != n {
		t.Fatalf("rows: %d (%v), want %d", total, err, n)
	}
}

// TestWithoutFullSyncNothingIsGathered: at synchronous NORMAL a commit
// does not sync the WAL before it publishes its frames, so the VFS must
// not hold them; nor on a connection whose URI does not ask for it (one
// without the rollback hook).
func TestWithoutFullSyncNothingIsGathered(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct{ name, dsn string }{
		{"synchronous NORMAL", dsn(filepath.Join(t.TempDir(), "db"), "NORMAL")},
		{"no " + walvfs.GatherParam, strings.Replace(dsn(filepath.Join(t.TempDir(), "db"), "FULL"), walvfs.GatherParam+"=1", walvfs.GatherParam+"=0", 1)},
	} {
		w := open(t, c.dsn)
		w.SetMaxOpenConns(1)
		if _, err := w.ExecContext(ctx, schema); err != nil {
			t.Fatal(err)
		}
		asked0 := walvfs.Stats().Asked
		for i := 1; i <= 20; i++ {
			if err := insert(ctx, w, i); err != nil {
				t.Fatal(err)
			}
		}
		if asked := walvfs.Stats().Asked; asked != asked0 {
			t.Fatalf("%s: %d writes went through a gathering WAL file", c.name, asked-asked0)
		}
	}
}

// TestARolledBackTransactionIsNotWritten: a transaction spills frames to
// its WAL (gathered), then rolls back, which releases the WAL's write
// lock without a call on the file; a second connection commits frames at
// the same place; the first then reads and closes. What the first
// gathered must never reach the file: the second's rows are all there
// and SQLite finds the file sound. (Found in review: without the drop,
// "file is not a database".)
func TestARolledBackTransactionIsNotWritten(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	a := open(t, dsn(path, "FULL", "cache_size(20)"))
	a.SetMaxOpenConns(1)
	b := open(t, dsn(path, "FULL"))
	b.SetMaxOpenConns(1)
	if _, err := a.ExecContext(ctx, `CREATE TABLE s (id INTEGER PRIMARY KEY, pad TEXT)`); err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 50; i++ {
		if _, err := a.ExecContext(ctx, `INSERT INTO s (pad) VALUES (?)`, strings.Repeat("p", 1000)); err != nil {
			t.Fatal(err)
		}
	}
	for round := range 3 {
		if _, err := a.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
			t.Fatal(err)
		}
		drops0 := walvfs.Stats().Drops
		tx, err := a.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for range 300 {
			if _, err := tx.ExecContext(ctx, `INSERT INTO s (pad) VALUES (?)`, strings.Repeat("z", 1000)); err != nil {
				t.Fatal(err)
			}
		}
		if err := tx.Rollback(); err != nil {
			t.Fatal(err)
		}
		if walvfs.Stats().Drops == drops0 {
			t.Fatalf("round %d: the rollback dropped nothing: the transaction did not spill, or the hook did not run", round)
		}
		for range 40 {
			if _, err := b.ExecContext(ctx, `INSERT INTO s (pad) VALUES (?)`, strings.Repeat("b", 1000)); err != nil {
				t.Fatal(err)
			}
		}
		var n int
		if err := a.QueryRowContext(ctx, `SELECT COUNT(*) FROM s WHERE pad = ?`, strings.Repeat("b", 1000)).Scan(&n); err != nil || n != 40*(round+1) {
			t.Fatalf("round %d: a reads %d of b's rows (%v), want %d", round, n, err, 40*(round+1))
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	d := open(t, dsn(path, "FULL"))
	var n, z int
	var check string
	if err := d.QueryRowContext(ctx, `SELECT COUNT(*) FROM s WHERE pad = ?`, strings.Repeat("b", 1000)).Scan(&n); err != nil || n != 120 {
		t.Fatalf("b's rows: %d (%v), want 120", n, err)
	}
	if err := d.QueryRowContext(ctx, `SELECT COUNT(*) FROM s WHERE pad = ?`, strings.Repeat("z", 1000)).Scan(&z); err != nil || z != 0 {
		t.Fatalf("rolled-back rows: %d (%v), want 0", z, err)
	}
	if err := d.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q (%v)", check, err)
	}
}

// TestAConnectionClosedInATransactionDamagesNothing: a connection
// closed with a spilled write transaction open rolls it back as it
// closes (its rollback hook can no longer reach the file then), and, the
// last connection, checkpoints, which syncs its WAL. Another connection
// that committed and closed in between keeps every row: the close
// callback (Closing) wrote the gathered frames while the first still held
// the write lock, not after. (Found in review.)
func TestAConnectionClosedInATransactionDamagesNothing(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	a, err := sqlite3.Open(dsn(path, "FULL", "cache_size(20)"))
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Trace(sqlite3.TRACE_CLOSE, func(sqlite3.TraceEvent, any, any) error { return walvfs.Closing(a) }); err != nil {
		t.Fatal(err)
	}
	b, err := sqlite3.Open(dsn(path, "FULL"))
	if err != nil {
		t.Fatal(err)
	}
	walvfs.Attach(b)
	for _, q := range []string{`CREATE TABLE s (id INTEGER PRIMARY KEY, pad TEXT)`, `PRAGMA wal_checkpoint(TRUNCATE)`, `BEGIN IMMEDIATE`} {
		if err := a.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	for range 300 {
		if err := a.Exec(`INSERT INTO s (pad) VALUES (printf('%.1000c', 'z'))`); err != nil {
			t.Fatal(err)
		}
	}
	closings0 := walvfs.Stats().Closings
	// The rollback a's close makes is where b commits and closes, so that
	// a's close then checkpoints as the last connection.
	a.RollbackHook(func() {
		for range 40 {
			if err := b.Exec(`INSERT INTO s (pad) VALUES (printf('%.1000c', 'b'))`); err != nil {
				t.Errorf("b: %v", err)
				return
			}
		}
		if err := b.Close(); err != nil {
			t.Errorf("b: %v", err)
		}
	})
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	if walvfs.Stats().Closings == closings0 {
		t.Fatal("the close callback did not run")
	}
	d := open(t, dsn(path, "FULL"))
	var n, z int
	var check string
	if err := d.QueryRow(`SELECT COUNT(*) FROM s WHERE pad = printf('%.1000c', 'b')`).Scan(&n); err != nil || n != 40 {
		t.Fatalf("b's committed rows: %d (%v), want 40", n, err)
	}
	if err := d.QueryRow(`SELECT COUNT(*) FROM s WHERE pad = printf('%.1000c', 'z')`).Scan(&z); err != nil || z != 0 {
		t.Fatalf("rolled-back rows: %d (%v), want 0", z, err)
	}
	if err := d.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q (%v)", check, err)
	}
}

// TestACloseRefusedLeavesTheTransactionWhole: a close refused because a
// statement is still open (SQLITE_BUSY) runs the close callback first,
// and the transaction then goes on and commits: every row it spilled is
// there. (Found in review: a callback that dropped the frames left
// "database disk image is malformed".)
func TestACloseRefusedLeavesTheTransactionWhole(t *testing.T) {
	path := filepath.Join(t.TempDir(), "db")
	a, err := sqlite3.Open(dsn(path, "FULL", "cache_size(20)"))
	if err != nil {
		t.Fatal(err)
	}
	walvfs.Attach(a)
	if err := a.Trace(sqlite3.TRACE_CLOSE, func(sqlite3.TraceEvent, any, any) error { return walvfs.Closing(a) }); err != nil {
		t.Fatal(err)
	}
	for _, q := range []string{`CREATE TABLE s (id INTEGER PRIMARY KEY, pad TEXT)`, `PRAGMA wal_checkpoint(TRUNCATE)`} {
		if err := a.Exec(q); err != nil {
			t.Fatal(err)
		}
	}
	st, _, err := a.Prepare(`SELECT 1`)
	if err != nil {
		t.Fatal(err)
	}
	if err := a.Exec(`BEGIN IMMEDIATE`); err != nil {
		t.Fatal(err)
	}
	for range 300 {
		if err := a.Exec(`INSERT INTO s (pad) VALUES (printf('%.1000c', 'z'))`); err != nil {
			t.Fatal(err)
		}
	}
	closings0 := walvfs.Stats().Closings
	if err := a.Close(); err == nil {
		t.Fatal("close succeeded with a statement open")
	}
	if walvfs.Stats().Closings == closings0 {
		t.Fatal("the close callback did not run")
	}
	if err := a.Exec(`COMMIT`); err != nil {
		t.Fatal(err)
	}
	if err := st.Close(); err != nil {
		t.Fatal(err)
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	d := open(t, dsn(path, "FULL"))
	var z int
	var check string
	if err := d.QueryRow(`SELECT COUNT(*) FROM s WHERE pad = printf('%.1000c', 'z')`).Scan(&z); err != nil || z != 300 {
		t.Fatalf("committed rows: %d (%v), want 300", z, err)
	}
	if err := d.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q (%v)", check, err)
	}
}

// TestALargeTransactionReadsItsOwnFrames: a transaction larger than its
// page cache spills frames to the WAL before it commits and reads them
// back; a checkpoint then copies the WAL into the database; what a fresh
// connection reads afterwards is every row, and SQLite finds the file
// sound.
func TestALargeTransactionReadsItsOwnFrames(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "db")
	w := open(t, dsn(path, "FULL", "cache_size(20)"))
	w.SetMaxOpenConns(1)
	if _, err := w.ExecContext(ctx, schema); err != nil {
		t.Fatal(err)
	}
	const n = 5000
	tx, err := w.BeginTx(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		if _, err := tx.ExecContext(ctx, `INSERT INTO r (id, a, b, c, pad) VALUES (?, ?, ?, ?, ?)`,
			i, strconv.Itoa(i*7919%100003), strconv.Itoa(i), strconv.Itoa(i*31%1009), strings.Repeat("y", 300)); err != nil {
			t.Fatal(err)
		}
		if i%1000 == 0 { // reads pages the transaction spilled
			var got int
			if err := tx.QueryRowContext(ctx, `SELECT COUNT(*) FROM r WHERE a >= ''`).Scan(&got); err != nil || got != i {
				t.Fatalf("inside the transaction after %d rows: %d (%v)", i, got, err)
			}
		}
	}
	if err := tx.Commit(); err != nil {
		t.Fatal(err)
	}
	for i := n + 1; i <= n+50; i++ {
		if err := insert(ctx, w, i); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := w.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`); err != nil {
		t.Fatal(err)
	}
	for i := n + 51; i <= n+60; i++ { // the WAL starts again from its header
		if err := insert(ctx, w, i); err != nil {
			t.Fatal(err)
		}
	}
	r := open(t, dsn(path, "FULL"))
	var got int
	var check string
	if err := r.QueryRowContext(ctx, `SELECT COUNT(*) FROM r`).Scan(&got); err != nil || got != n+60 {
		t.Fatalf("rows: %d (%v), want %d", got, err, n+60)
	}
	if err := r.QueryRowContext(ctx, `PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
		t.Fatalf("integrity_check: %q (%v)", check, err)
	}
}

// TestKilledWriterLosesNothingAcknowledged: a child process commits rows
// one a transaction and prints each id after its commit returns; it is
// SIGKILLed mid-stream. Every printed id is in the database afterwards,
// and SQLite finds the file sound.
func TestKilledWriterLosesNothingAcknowledged(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "db")
	for round := 0; round < 3; round++ {
		cmd := exec.Command(os.Args[0])
		cmd.Env = append(os.Environ(), "WALVFS_CHILD_DB="+path, fmt.Sprintf("WALVFS_CHILD_FROM=%d", round*1_000_000+1))
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		var acked []int
		sc := bufio.NewScanner(out)
		deadline := time.Now().Add(20 * time.Second)
		for sc.Scan() {
			id, err := strconv.Atoi(sc.Text())
			if err != nil {
				t.Fatalf("round %d: the child printed %q", round, sc.Text())
			}
			acked = append(acked, id)
			if len(acked) == 150+round*100 || time.Now().After(deadline) {
				_ = cmd.Process.Signal(syscall.SIGKILL)
				break
			}
		}
		_ = cmd.Wait()
		if len(acked) == 0 {
			t.Fatalf("round %d: the child acknowledged nothing", round)
		}
		db := open(t, dsn(path, "FULL"))
		for _, id := range acked {
			var got int
			if err := db.QueryRow(`SELECT COUNT(*) FROM r WHERE id = ?`, id).Scan(&got); err != nil || got != 1 {
				t.Fatalf("round %d: row %d was acknowledged and is not there (%d, %v)", round, id, got, err)
			}
		}
		var check string
		if err := db.QueryRow(`PRAGMA integrity_check`).Scan(&check); err != nil || check != "ok" {
			t.Fatalf("round %d: integrity_check %q (%v)", round, check, err)
		}
		_ = db.Close()
		t.Logf("round %d: %d acknowledged rows all there after SIGKILL", round, len(acked))
	}
}

// TestMain runs TestKilledWriterLosesNothingAcknowledged's child when
// WALVFS_CHILD_DB names its database, and the tests otherwise.
func TestMain(m *testing.M) {
	if path := os.Getenv("WALVFS_CHILD_DB"); path != "" {
		childWriter(path)
		return
	}
	os.Exit(m.Run())
}

// childWriter commits a row a transaction from WALVFS_CHILD_FROM on,
// printing each id once its commit has returned, until it is killed.
func childWriter(path string) {
	fail := func(err error) {
		fmt.Fprintln(os.Stderr, "child:", err)
		os.Exit(2)
	}
	from, err := strconv.Atoi(os.Getenv("WALVFS_CHILD_FROM"))
	if err != nil {
		fail(err)
	}
	db, err := openDB(dsn(path, "FULL"))
	if err != nil {
		fail(err)
	}
	db.SetMaxOpenConns(1)
	ctx := context.Background()
	if _, err := db.ExecContext(ctx, strings.ReplaceAll(strings.ReplaceAll(schema, "TABLE", "TABLE IF NOT EXISTS"), "INDEX", "INDEX IF NOT EXISTS")); err != nil {
		fail(err)
	}
	w := bufio.NewWriter(os.Stdout)
	for i := from; ; i++ {
		if err := insert(ctx, db, i); err != nil {
			fail(err)
		}
		fmt.Fprintln(w, i)
		_ = w.Flush()
	}
}

package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// TestSQLiteBusyIsAConflict: a write that finds the database file locked
// by another connection (SQLite's BUSY, here at once: busy_timeout 0) is
// a conflict the store runs again, told by the driver's error code, as
// the errors GORM returns carry it; another SQLite error is not.
func TestSQLiteBusyIsAConflict(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "busy.db")
	open := func() *sql.DB {
		db, _, err := openSQLiteDB(SQLiteDSN(path, 0))
		if err != nil {
			t.Fatal(err)
		}
		db.SetMaxOpenConns(1)
		t.Cleanup(func() { _ = db.Close() })
		return db
	}
	holder, other := open(), open()
	ctx := context.Background()
	if _, err := holder.ExecContext(ctx, "CREATE TABLE t (v INTEGER)"); err != nil {
		t.Fatal(err)
	}
	conn, err := holder.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}
	defer func() { _, _ = conn.ExecContext(ctx, "ROLLBACK") }()
	tctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	_, err = other.ExecContext(tctx, "INSERT INTO t VALUES (1)")
	if err == nil {
		t.Fatal("a write beside a held write lock succeeded")
	}
	if !isConflict(err) || !isConflict(fmt.Errorf("store report: %w", err)) || !isRetryable(err) {
		t.Fatalf("isConflict(%v) = false; want SQLite's BUSY taken for a conflict", err)
	}
	_, err = other.ExecContext(tctx, "INSERT INTO nowhere VALUES (1)")
	if err == nil || isConflict(err) || isConflict(errors.New("database is locked")) {
		t.Fatalf("isConflict of another error (%v), or of the words alone, = true", err)
	}
}

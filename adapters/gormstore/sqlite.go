package gormstore

import (
	"database/sql"
	"errors"
	"fmt"

	"github.com/ncruces/go-sqlite3"
	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/gormlite"
	"gorm.io/gorm"

	"github.com/lender/disbursementd/adapters/gormstore/internal/walvfs"
)

// openSQLiteDB opens the embedded SQLite on dsn and GORM's dialector over
// that pool: github.com/ncruces/go-sqlite3 (pure Go, no cgo) and its GORM
// glue, gormlite, through which GORM only builds queries (migrations are
// our own SQL). Why this driver, and its versions: docs/decisions.md and
// docs/performance.md ("SQLite driver"). Every connection's -wal file is
// gathered (walvfs: a commit's frames in one write), with the rollback
// hook and the close callback that drop a rolled-back transaction's
// frames.
func openSQLiteDB(dsn string) (*sql.DB, gorm.Dialector, error) {
	db, err := driver.Open(dsn+"&"+walvfs.GatherParam+"=1", func(c *sqlite3.Conn) error {
		walvfs.Attach(c)
		return requireFullSync(c)
	}, walvfs.Closing)
	if err != nil {
		return nil, nil, err
	}
	return db, gormlite.OpenDB(db), nil
}

// requireFullSync refuses a connection that does not sync the WAL at
// every commit: walvfs gathers by what the URI says (Gathers), and a
// connection that said FULL in a form SQLite read otherwise would publish
// frames still gathered. One statement a connection, when it opens.
func requireFullSync(c *sqlite3.Conn) error {
	st, _, err := c.Prepare("PRAGMA main.synchronous")
	if err != nil {
		return fmt.Errorf("read the sync level: %w", err)
	}
	defer st.Close()
	if !st.Step() {
		return fmt.Errorf("read the sync level: %w", errors.Join(st.Err(), errors.New("no row")))
	}
	if level := st.ColumnInt(0); level < 2 {
		return fmt.Errorf("sqlite connection runs synchronous %d; the store needs FULL (2) or EXTRA (3)", level)
	}
	return nil
}

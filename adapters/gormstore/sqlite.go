package gormstore

import (
	"database/sql"

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
		return nil
	}, walvfs.Closing)
	if err != nil {
		return nil, nil, err
	}
	return db, gormlite.OpenDB(db), nil
}

package gormstore

import (
	"database/sql"

	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/gormlite"
	"gorm.io/gorm"
)

// openSQLiteDB opens the embedded SQLite on dsn and GORM's dialector over
// that pool: github.com/ncruces/go-sqlite3 (pure Go, no cgo) and its GORM
// glue, gormlite, through which GORM only builds queries (migrations are
// our own SQL). Why this driver, and its versions: docs/decisions.md and
// docs/performance.md ("SQLite driver").
func openSQLiteDB(dsn string) (*sql.DB, gorm.Dialector, error) {
	db, err := driver.Open(dsn)
	if err != nil {
		return nil, nil, err
	}
	return db, gormlite.OpenDB(db), nil
}

package gormstore

import (
	"database/sql"

	"github.com/ncruces/go-sqlite3/driver"
	"github.com/ncruces/go-sqlite3/gormlite"
	"gorm.io/gorm"
)

// openSQLiteDB opens the embedded SQLite on dsn and GORM's dialector over
// that pool: SQLite 3.54 compiled to Go by wasm2go
// (github.com/ncruces/go-sqlite3, pure Go, no cgo), chosen by measurement
// over modernc.org/sqlite (docs/performance.md: the least CPU per stored
// report and per staging row). Its GORM glue, gormlite, is the last
// release of that module; GORM only builds queries through it here
// (migrations are our own SQL), and the driver beneath it is current.
func openSQLiteDB(dsn string) (*sql.DB, gorm.Dialector, error) {
	db, err := driver.Open(dsn)
	if err != nil {
		return nil, nil, err
	}
	return db, gormlite.OpenDB(db), nil
}

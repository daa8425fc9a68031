package gormstore

import (
	"github.com/ncruces/go-sqlite3/gormlite"
	"gorm.io/gorm"
)

// sqliteDialector is the embedded SQLite's GORM dialector: SQLite 3.54
// compiled to Go by wasm2go (github.com/ncruces/go-sqlite3, pure Go, no
// cgo), chosen by measurement over modernc.org/sqlite (docs/performance.md:
// the least CPU per stored report and per staging row). Its GORM glue,
// gormlite, is the last release of that module; GORM only builds queries
// through it here (migrations are our own SQL), and the driver beneath it
// is current.
func sqliteDialector(dsn string) gorm.Dialector { return gormlite.Open(dsn) }

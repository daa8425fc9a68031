package gormstore

import (
	"github.com/glebarez/sqlite"
	"gorm.io/gorm"
)

// sqliteDialector is the embedded SQLite's GORM dialector.
func sqliteDialector(dsn string) gorm.Dialector { return sqlite.Open(dsn) }

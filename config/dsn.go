package config

import (
	"regexp"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// mysqlDSN matches what only a go-sql-driver DSN has: an "@" before the
// first slash ([user[:password]@][net[(addr)]]/dbname). A file path has
// its first "@", if any, after a directory.
var mysqlDSN = regexp.MustCompile(`^[^/]*@[^/]*/`)

// looksLikeMySQLDSN reports whether a store.dsn given for SQLite is
// clearly a MySQL DSN.
func looksLikeMySQLDSN(dsn string) bool { return mysqlDSN.MatchString(dsn) }

// checkMySQLDSN refuses a DSN the MySQL driver cannot read, with the
// driver's reason and the form it wants. The driver's messages name the
// part it could not read, never the password.
func checkMySQLDSN(dsn string) error {
	if _, err := mysqldrv.ParseDSN(dsn); err != nil {
		return keyError("store.dsn", "not a MySQL DSN (%s); the form is user:password@tcp(host:3306)/dbname", oneLine(err.Error()))
	}
	return nil
}

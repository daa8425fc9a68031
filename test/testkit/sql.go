package testkit

import (
	"database/sql"
	"testing"

	"github.com/lender/disbursementd/test/storetest"
)

// MustSQL opens a pool of the test's own on a store's database.
func MustSQL(t *testing.T, driver, dsn string) *sql.DB {
	t.Helper()
	db, err := storetest.OpenSQL(driver, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = db.Close() })
	return db
}

// RowsFor returns how many staging rows hold credit, and the file they name.
func RowsFor(t *testing.T, db *sql.DB, credit string) (int, string) {
	t.Helper()
	var n int
	var file sql.NullString
	err := db.QueryRow("SELECT COUNT(*), MAX(file_name) FROM partner_disbursement_staging WHERE numero_credito = ?", credit).Scan(&n, &file)
	if err != nil {
		t.Fatal(err)
	}
	return n, file.String
}

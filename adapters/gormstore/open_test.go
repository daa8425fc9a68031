package gormstore_test

import (
	"strings"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
)

// TestMySQLDSNKeepsRowsAffectedMeaningChanged: whatever the operator's
// DSN says, the store's connections count rows changed, not rows matched,
// and read times as UTC time.Time in utf8mb4.
func TestMySQLDSNKeepsRowsAffectedMeaningChanged(t *testing.T) {
	out, err := gormstore.MySQLDSN("u:p@tcp(db:3306)/disb?clientFoundRows=true&parseTime=false&loc=Local")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := mysqldrv.ParseDSN(out)
	if err != nil {
		t.Fatal(err)
	}
	if cfg.ClientFoundRows || !cfg.ParseTime || cfg.Loc != time.UTC || !strings.Contains(out, "charset=utf8mb4") {
		t.Fatalf("MySQLDSN gave %s", out)
	}
	if _, err := gormstore.MySQLDSN("not a dsn"); err == nil {
		t.Fatal("a malformed DSN was accepted")
	}
}

// TestStoreErrorsMaskTheDSNsPassword: whatever a malformed DSN makes the
// driver say, the store's error names store.dsn and shows no password.
func TestStoreErrorsMaskTheDSNsPassword(t *testing.T) {
	t.Parallel()
	for _, dsn := range []string{
		"disb:dsn-secret@tcp(db:3306)disb",
		"disb:dsn-secret@tcp(db:3306/disb",
		"disb:dsn-secret@tcp(db)/d%zz",
		"mysql://disb:dsn-secret@db/disb",
	} {
		_, err := gormstore.MySQLDSN(dsn)
		if err == nil || !strings.Contains(err.Error(), "store.dsn") || strings.Contains(err.Error(), "dsn-secret") {
			t.Errorf("MySQLDSN(%q) = %v: want an error naming store.dsn without the password", dsn, err)
		}
	}
}

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

package config

import (
	"os"
	"strings"
	"testing"
)

// TestMySQLDSNUnderSQLiteRefused: a MySQL DSN with the default driver
// (sqlite) fails with one line saying to set store.driver, without the
// password, and creates nothing (it used to become a directory named
// after the user and password).
func TestMySQLDSNUnderSQLiteRefused(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, dsn := range []string{
		"disb:pw-secret@tcp(127.0.0.1:3306)/disbursement",
		"disb:pw-secret@unix(/run/mysqld/mysqld.sock)/disbursement?parseTime=true",
		"disb:pw-secret@/disbursement",
		"disb@tcp(db)/x",
	} {
		t.Setenv("DISB_STORE_DSN", dsn)
		_, err := Load("")
		mustNameKey(t, err, "store.dsn")
		msg := err.Error()
		if !strings.Contains(msg, "store.driver: mysql") || !strings.Contains(msg, "DISB_STORE_DRIVER=mysql") ||
			strings.Contains(msg, "pw-secret") || strings.Contains(msg, "\n") {
			t.Errorf("%s: %q; want one line saying to set store.driver, without the password", dsn, msg)
		}
	}
	if entries, _ := os.ReadDir("."); len(entries) > 0 {
		t.Errorf("the refused DSNs left %v behind", entries)
	}
	// Paths stay paths, @ and all.
	for _, path := range []string{"data/disbursement.db", "/var/lib/disbursementd/x@y/db.sqlite", "disb.db", "./a@b.db"} {
		t.Setenv("DISB_STORE_DSN", path)
		if _, err := Load(""); err != nil {
			t.Errorf("SQLite path %q refused: %v", path, err)
		}
	}
}

// TestMalformedMySQLDSNHintsTheForm: a DSN the MySQL driver cannot read
// is refused at load, with the driver's reason and the tcp(host:port)
// form, never the password.
func TestMalformedMySQLDSNHintsTheForm(t *testing.T) {
	t.Chdir(t.TempDir())
	t.Setenv("DISB_STORE_DRIVER", "mysql")
	for _, dsn := range []string{
		"disb:pw-secret@db:3306/disbursement", // the tcp( ) forgotten
		"disb:pw-secret@tcp(db:3306)",         // no database
		"disb:pw-secret@tcp(db:3306/disbursement",
	} {
		t.Setenv("DISB_STORE_DSN", dsn)
		_, err := Load("")
		mustNameKey(t, err, "store.dsn")
		if msg := err.Error(); !strings.Contains(msg, "tcp(host:3306)") || strings.Contains(msg, "pw-secret") {
			t.Errorf("%s: %q; want the tcp(host:3306) form, without the password", dsn, msg)
		}
	}
	t.Setenv("DISB_STORE_DSN", "disb:pw@tcp(db:3306)/disbursement?parseTime=true")
	if _, err := Load(""); err != nil {
		t.Fatalf("a good DSN refused: %v", err)
	}
}

package gormstore_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/test/storetest"
)

// TestMySQLSchemaFitsInnoDB proves on the real server why the columns are
// sized from fields.csv: 92 plain utf8mb4 VARCHAR(32) columns already break
// InnoDB's row-size limit in strict mode (error 1118), while the staging
// table migrates and holds DECIMAL, DATE and utf8mb4 where they belong.
func TestMySQLSchemaFitsInnoDB(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	storetest.MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{})
	db, err := storetest.OpenDB(gormstore.MySQL, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer storetest.CloseDB(db)
	var cols []string
	for i := 0; i < 92; i++ {
		cols = append(cols, fmt.Sprintf("c%d VARCHAR(32)", i))
	}
	err = db.Exec("CREATE TABLE naive (" + strings.Join(cols, ", ") + ") ENGINE=InnoDB DEFAULT CHARSET=utf8mb4").Error
	var me *mysqldrv.MySQLError
	if !errors.As(err, &me) || me.Number != 1118 {
		t.Fatalf("92 × VARCHAR(32) utf8mb4: %v; expected error 1118 (row size too large) in strict mode", err)
	}
	types := map[string]string{}
	rows, err := db.Raw(`SELECT column_name, column_type, COALESCE(character_set_name, '') FROM information_schema.columns
		WHERE table_schema = DATABASE() AND table_name = 'partner_disbursement_staging'`).Rows()
	if err != nil {
		t.Fatal(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, typ, cs string
		if err := rows.Scan(&name, &typ, &cs); err != nil {
			t.Fatal(err)
		}
		types[name] = typ + " " + cs
	}
	if len(types) != 91+10+5 {
		t.Errorf("%d columns, want 91 fields + 10 metadata + 5 of the decision", len(types))
	}
	for col, want := range map[string]string{
		"monto_aprobado": "decimal(18,2) ", "tasa_nominal_mensual": "decimal(9,4) ", "fecha_desembolso": "date ",
		"primer_nombre": "varchar(60) utf8mb4", "observaciones": "text utf8mb4", "nit_cc": "varchar(20) ascii",
		"numero_credito": "varchar(30) ascii", "plazo_meses": "int(11) ", "es_pep": "tinyint(1) ",
	} {
		if types[col] != want {
			t.Errorf("column %s is %q, want %q", col, types[col], want)
		}
	}
	// User names are bytes (migration 2): a _bin collation would still
	// be PAD SPACE and take 'acme   ' for 'acme'.
	var binary []string
	db.Raw(`SELECT CONCAT(table_name, '.', column_name, ' ', column_type) FROM information_schema.columns
		WHERE table_schema = DATABASE() AND column_name IN ('username', 'partner_user') ORDER BY 1`).Scan(&binary)
	if got, want := strings.Join(binary, ", "), "idempotency_keys.partner_user varbinary(64), partner_disbursement_staging.partner_user varbinary(64), "+
		"report_events.partner_user varbinary(64), users.username varbinary(64), webhook_endpoints.partner_user varbinary(64), "+
		"webhook_endpoint_counts.partner_user varbinary(64)"; got != want {
		t.Errorf("user name columns: %s; want %s", got, want)
	}
	var indexes []string
	db.Raw(`SELECT DISTINCT index_name FROM information_schema.statistics WHERE table_schema = DATABASE()`).Scan(&indexes)
	for _, want := range []string{"ux_users_username", "ux_idempotency_user_key", "ix_staging_user_received_id", "ix_staging_user_credit_received", "ix_staging_user_key_received", "ix_staging_numero_credito", "ix_idempotency_expires",
		"ix_staging_file_name", "ix_staging_received", "ix_idempotency_state_created", "ix_throttle_keys_expires", "ix_attempts_key_at", "ix_attempts_expires"} {
		if !strings.Contains(strings.Join(indexes, " "), want) {
			t.Errorf("index %s missing: %v", want, indexes)
		}
	}
}

// TestMySQLMigrationStoppedHalfway: MySQL commits each DDL statement on
// its own, so a migration that stopped half-way leaves its tables and
// indexes behind without its version recorded; the next migrate must
// finish it instead of failing on them forever.
func TestMySQLMigrationStoppedHalfway(t *testing.T) {
	t.Parallel()
	dsn := storetest.MustCreateDatabase(t)
	storetest.MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{}) // migrated
	db, err := storetest.OpenDB(gormstore.MySQL, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer storetest.CloseDB(db)
	// Everything of migration 2 is there, but not its record: as when the
	// process died after its last statement.
	if err := db.Exec("DELETE FROM schema_migrations WHERE version = 2").Error; err != nil {
		t.Fatal(err)
	}
	st := storetest.MustOpen(t, gormstore.MySQL, dsn, gormstore.Options{})
	if err := st.CheckSchema(t.Context()); err != nil {
		t.Fatalf("after migrating again: %v", err)
	}
}

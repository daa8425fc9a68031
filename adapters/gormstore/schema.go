package gormstore

import (
	"fmt"
	"strings"

	"github.com/lender/disbursementd/domain"
)

// column is one staging column derived from a catalogue field.
type column struct {
	name  string
	field domain.Field
	index int // the field's index in the catalogue (domain.Report.At)
}

func columnsFor(cat *domain.Catalogue) []column {
	var out []column
	for i, f := range cat.Fields {
		if f.Type == domain.TypeFile {
			continue // the file's metadata has its own columns
		}
		out = append(out, column{name: f.Internal, field: f, index: i})
	}
	return out
}

// columnType sizes a staging column from fields.csv. On MySQL the code-like
// columns are ASCII, so 92 columns stay well inside InnoDB's row-size
// limit (utf8mb4 counts 4 bytes a character); long texts are TEXT.
func columnType(driver string, f domain.Field) string {
	if driver == SQLite {
		switch f.Type {
		case domain.TypeInteger, domain.TypeBoolean:
			return "INTEGER"
		default:
			// Money, rates and dates are TEXT so that SQLite keeps them
			// exactly as written ("14334900.00", "2026-11-26").
			return "TEXT"
		}
	}
	const ascii = " CHARACTER SET ascii COLLATE ascii_bin"
	switch f.Type {
	case domain.TypeString, domain.TypeEmail:
		if f.Max > 255 {
			return "TEXT"
		}
		return fmt.Sprintf("VARCHAR(%d)", f.Max)
	case domain.TypeEnum:
		n := 1
		for _, v := range f.Enum {
			n = max(n, len(v))
		}
		return fmt.Sprintf("VARCHAR(%d)%s", n, ascii)
	case domain.TypeNIT:
		return "VARCHAR(12)" + ascii
	case domain.TypeIdentification:
		return "VARCHAR(20)" + ascii
	case domain.TypeDANE:
		return "CHAR(5)" + ascii
	case domain.TypePhone:
		return fmt.Sprintf("VARCHAR(%d)%s", f.Top, ascii)
	case domain.TypeCreditNumber:
		return "VARCHAR(30)" + ascii
	case domain.TypeMoney:
		return "DECIMAL(18,2)"
	case domain.TypeRate:
		return "DECIMAL(9,4)"
	case domain.TypeInteger:
		return "INT"
	case domain.TypeBoolean:
		return "TINYINT(1)"
	case domain.TypeDate:
		return "DATE"
	}
	panic("gormstore: no column type for " + string(f.Type))
}

// migration is one versioned schema change, with its statements per driver.
type migration struct {
	version int
	name    string
	stmts   func(driver string, cols []column) []string
}

// migrations are applied in order and never edited once released: a new
// field in fields.csv needs a new migration that adds its column.
var migrations = []migration{
	{1, "users, staging table, idempotency keys", migration1},
	{2, "byte-exact user names, sweep indexes, login throttle", migration2},
}

func migration1(driver string, cols []column) []string {
	my := driver == MySQL
	pick := func(sqlite, mysql string) string {
		if my {
			return mysql
		}
		return sqlite
	}
	tableOpts := pick("", " ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_unicode_ci ROW_FORMAT=DYNAMIC")
	id := pick("INTEGER PRIMARY KEY AUTOINCREMENT", "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY")
	ts := pick("DATETIME", "DATETIME(6)")
	ascii := pick("", " CHARACTER SET ascii COLLATE ascii_bin")

	var b strings.Builder
	fmt.Fprintf(&b, "CREATE TABLE %s (\n  id %s,\n  received_at %s NOT NULL,\n", StagingTable, id, ts)
	fmt.Fprintf(&b, "  partner_user VARCHAR(64) NOT NULL,\n  partner_nit VARCHAR(12)%s NULL,\n", ascii)
	for _, c := range cols {
		fmt.Fprintf(&b, "  %s %s NULL,\n", c.name, columnType(driver, c.field))
	}
	fmt.Fprintf(&b, "  file_name VARCHAR(100)%s NULL,\n  file_size BIGINT NULL,\n  file_sha256 CHAR(64)%s NULL,\n", ascii, ascii)
	fmt.Fprintf(&b, "  request_id VARCHAR(64)%s NULL,\n  idempotency_key VARCHAR(255)%s NULL,\n  payload_sha256 CHAR(64)%s NOT NULL\n)%s",
		ascii, ascii, ascii, tableOpts)

	return []string{
		fmt.Sprintf(`CREATE TABLE users (
  id %s,
  username VARCHAR(64) NOT NULL,
  password_hash VARCHAR(255)%s NOT NULL,
  nit VARCHAR(12)%s NOT NULL,
  active SMALLINT NOT NULL DEFAULT 1,
  created_at %s NOT NULL,
  updated_at %s NOT NULL
)%s`, id, ascii, ascii, ts, ts, tableOpts),
		"CREATE UNIQUE INDEX ux_users_username ON users (username)",
		b.String(),
		fmt.Sprintf("CREATE INDEX ix_staging_user_received ON %s (partner_user, received_at)", StagingTable),
		fmt.Sprintf("CREATE INDEX ix_staging_numero_credito ON %s (numero_credito)", StagingTable),
		fmt.Sprintf(`CREATE TABLE idempotency_keys (
  id %s,
  partner_user VARCHAR(64) NOT NULL,
  key_hash CHAR(64)%s NOT NULL,
  payload_sha256 CHAR(64)%s NOT NULL,
  state VARCHAR(10)%s NOT NULL,
  nonce CHAR(32)%s NOT NULL,
  report_id BIGINT NULL,
  file_name VARCHAR(100)%s NULL,
  created_at %s NOT NULL,
  expires_at %s NOT NULL
)%s`, id, ascii, ascii, ascii, ascii, ascii, ts, ts, tableOpts),
		"CREATE UNIQUE INDEX ux_idempotency_user_key ON idempotency_keys (partner_user, key_hash)",
		"CREATE INDEX ix_idempotency_expires ON idempotency_keys (expires_at)",
	}
}

// migration2 makes user names byte-exact on MySQL (SQLite compares text
// byte for byte already): `ACME`, `acmé` and `acme   ` are not `acme`, so
// a login, a report's user and the throttle all count one name as the
// store matches it. It adds the indexes of the crash sweep and the tables
// of the login throttle that replicas share. On MySQL the collation change
// rebuilds the three tables.
func migration2(driver string, _ []column) []string {
	my := driver == MySQL
	var out []string
	if my {
		// VARBINARY, not utf8mb4_bin: MySQL's and MariaDB's _bin
		// collations are PAD SPACE, so 'acme   ' = 'acme' there. Bytes
		// compare as bytes, trailing spaces included.
		const bin = "VARBINARY(64) NOT NULL"
		out = append(out,
			"ALTER TABLE users MODIFY username "+bin,
			fmt.Sprintf("ALTER TABLE %s MODIFY partner_user %s", StagingTable, bin),
			"ALTER TABLE idempotency_keys MODIFY partner_user "+bin,
		)
	}
	id := "INTEGER PRIMARY KEY AUTOINCREMENT"
	hash, tableOpts := "CHAR(64)", ""
	if my {
		id = "BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY"
		hash = "CHAR(64) CHARACTER SET ascii COLLATE ascii_bin"
		tableOpts = " ENGINE=InnoDB DEFAULT CHARSET=ascii COLLATE=ascii_bin"
	}
	return append(out,
		fmt.Sprintf("CREATE INDEX ix_staging_file_name ON %s (file_name)", StagingTable),
		fmt.Sprintf("CREATE INDEX ix_staging_received ON %s (received_at)", StagingTable),
		"CREATE INDEX ix_idempotency_state_created ON idempotency_keys (state, created_at)",
		// One row per throttle key (the SHA-256 of the key, so any key is
		// byte-exact and fixed in size): the lock that serialises Take for
		// that key across replicas. Times are Unix nanoseconds, compared as
		// numbers on every driver.
		fmt.Sprintf(`CREATE TABLE login_throttle_keys (
  key_hash %s NOT NULL PRIMARY KEY,
  expires_ns BIGINT NOT NULL
)%s`, hash, tableOpts),
		"CREATE INDEX ix_throttle_keys_expires ON login_throttle_keys (expires_ns)",
		fmt.Sprintf(`CREATE TABLE login_attempts (
  id %s,
  key_hash %s NOT NULL,
  attempt_id CHAR(24)%s NOT NULL,
  at_ns BIGINT NOT NULL,
  expires_ns BIGINT NOT NULL
)%s`, id, hash, map[bool]string{true: " CHARACTER SET ascii COLLATE ascii_bin"}[my], tableOpts),
		"CREATE INDEX ix_attempts_key_at ON login_attempts (key_hash, at_ns)",
		"CREATE INDEX ix_attempts_expires ON login_attempts (expires_ns)",
	)
}

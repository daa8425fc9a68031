package gormstore

import (
	"embed"
	"fmt"
	"strings"
)

// Migration is one versioned schema change: frozen SQL per driver. A
// released migration is never edited and never reads the live catalogue;
// a new field in fields.csv is a new migration that adds its column (see
// migrations/README.md).
type Migration struct {
	Version int
	Name    string
	SQLite  []string // statements, in order
	MySQL   []string
}

func (m Migration) stmts(driver string) []string {
	if driver == MySQL {
		return m.MySQL
	}
	return m.SQLite
}

//go:embed migrations/*.sql
var migrationFiles embed.FS

// shipped names the released migrations; their SQL is in
// migrations/NNNN.<driver>.sql. The names are released text too (each is
// written into schema_migrations): migration 3's "file claims" are what
// the code now calls reservations (reservations.go).
var shipped = []struct {
	version int
	name    string
}{
	{1, "users, staging table, idempotency keys"},
	{2, "byte-exact user names, sweep indexes, login throttle"},
	{3, "file claims and tombstones"},
	{4, "indexes of the partner's look-ups"},
	{5, "password changes"},
	{6, "keyset pages of the partner's look-ups"},
	{7, "decisions, events and webhooks"},
	{8, "one order per table"},
	{9, "partners' secret rotations"},
	{10, "endpoint counts recounted"},
}

// Migrations returns the released migrations, in order.
func Migrations() []Migration {
	out := make([]Migration, len(shipped))
	for i, m := range shipped {
		out[i] = Migration{Version: m.version, Name: m.name,
			SQLite: mustStatements(m.version, SQLite), MySQL: mustStatements(m.version, MySQL)}
	}
	return out
}

func mustStatements(version int, driver string) []string {
	name := fmt.Sprintf("migrations/%04d.%s.sql", version, driver)
	b, err := migrationFiles.ReadFile(name)
	if err != nil {
		panic("gormstore: missing " + name) // the embed pattern guarantees it; a test reads every one
	}
	return SplitStatements(string(b))
}

// SplitStatements splits a migration file into statements: each ends with
// ";" at the end of a line; lines starting with "--" are comments.
func SplitStatements(text string) []string {
	var out []string
	var cur strings.Builder
	for _, line := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(line), "--") {
			continue
		}
		if cur.Len() > 0 || strings.TrimSpace(line) != "" {
			cur.WriteString(line)
			cur.WriteByte('\n')
		}
		if strings.HasSuffix(strings.TrimSpace(line), ";") {
			stmt := strings.TrimSuffix(strings.TrimSpace(cur.String()), ";")
			out = append(out, stmt)
			cur.Reset()
		}
	}
	if s := strings.TrimSpace(cur.String()); s != "" {
		out = append(out, s)
	}
	return out
}

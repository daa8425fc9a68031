package gormstore

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
)

// released pins the text of every released migration: a database in the
// field has run it, so editing it would leave that database and a fresh
// one with different schemas. A new migration adds its line here.
var released = map[string]string{
	"0001.mysql.sql":  "a33802ae6ba8b58f86c7d283592bd636eb18464fa87570d9bb2a5b54a753ddea",
	"0001.sqlite.sql": "77467500ca28e801a36882c02f4c04713886836c4c80814beff258cd21136125",
	"0002.mysql.sql":  "740ed39b24b2a469539927c949e1b9f4901e631a3a16a7891c88e69bd887c0c3",
	"0002.sqlite.sql": "8063cfd79954e1835775e954c0526ed455e57a0b81499cca4803cbef4b06b79f",
	"0003.mysql.sql":  "39b81cdd7d56b12aba57b5d4195b0eea5ea0d0684db159b62dc3ee175a4ab71a",
	"0003.sqlite.sql": "26580442e81062b1f5c6af1c4904a3b2f4a032572e50514ff5d5473554b12607",
	"0004.mysql.sql":  "45ec824ec150a2aa232ae588b5cc97aab8431436056c4b05fce446373c01ff3a",
	"0004.sqlite.sql": "7e675f53203abb06c55b528adaad34fc9245615464b2feb5c297e65f24606b07",
	"0005.mysql.sql":  "b24a6a20d3e8d53648dc494d0a204505371b3872ad860a1841896dcd64c51fff",
	"0005.sqlite.sql": "9ad2e37260630804a324845829f281acfd0db2b5b101ddb01176beffd3551ebb",
	"0006.mysql.sql":  "250c0de530a20d140d57f0820ab61958b3d1216a03f5e4d5afa206592ad9e2ce",
	"0006.sqlite.sql": "47f43095e6c0ca00ff8b32e5e468373c9e3ed35559fe079234e74dd0515fcdb7",
	"0007.mysql.sql":  "9f8a8a4b89b8485ff9575a5c8b2ebc45050e5e37de089fd5a9c038f9ef608b3e",
	"0007.sqlite.sql": "a78b3198abcfebfde3b3923f68acae5995ca9d4b56985e2619c517e2b071d0ab",
	"0008.mysql.sql":  "902d6f132f36b3d472137b08ef4eeea066145a079ffbcc6da29c6ac321392558",
	"0008.sqlite.sql": "31c35990b05adf9e5663b3c6d87b7f8d6a90165ab2183ed3ec85403205420939",
	"0009.mysql.sql":  "f82afae8aae36d95917bab9c2ec38a4cdeceae940a82dcceb0abcc2f47290983",
	"0009.sqlite.sql": "61fce26f50dc7a7fae494edeb0f80f600c023976032def6c43a0664239539a66",
	"0010.mysql.sql":  "c0a994e9fc156a4bd8fce93b91d38f2319a8115cecddf1d40555973be15fedb4",
	"0010.sqlite.sql": "5c52598b9e70392e20847f5edbb21d5ce7d6636891236752f94eeb28b92e9eb4",
}

func TestMigrationsFrozen(t *testing.T) {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, e := range entries {
		if !strings.HasSuffix(e.Name(), ".sql") {
			continue
		}
		seen++
		b, err := migrationFiles.ReadFile("migrations/" + e.Name())
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(b)
		want, ok := released[e.Name()]
		switch {
		case !ok:
			t.Errorf("%s is not pinned in released: add %q once it is final", e.Name(), hex.EncodeToString(sum[:]))
		case want != hex.EncodeToString(sum[:]):
			t.Errorf("%s was edited: a released migration is never changed; add a new one (migrations/README.md)", e.Name())
		}
	}
	if want := 2 * len(shipped); seen != want {
		t.Errorf("%d migration files, want %d (one per driver for each of %d migrations)", seen, want, len(shipped))
	}
	for _, m := range Migrations() {
		if len(m.SQLite) == 0 || len(m.MySQL) == 0 {
			t.Errorf("migration %d has no statements for a driver", m.Version)
		}
	}
}

// TestMigrationsMatchCatalogue: after every migration, each field of the
// shipped fields.csv has its staging column, of the type columnType asks
// for. When a field was added without its migration it prints the
// definitions to write.
func TestMigrationsMatchCatalogue(t *testing.T) {
	cat := domain.DefaultCatalogue()
	st, err := Open(SQLite, filepath.Join(t.TempDir(), "m.db"), testOptions(), cat)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	// Migrate checks the columns itself; read them here to say what is off.
	if _, err := st.Migrate(context.Background()); err != nil && !strings.Contains(err.Error(), "no column for fields") {
		t.Fatal(err)
	}
	types, err := st.write.orm.Migrator().ColumnTypes(StagingTable)
	if err != nil {
		t.Fatal(err)
	}
	have := map[string]string{}
	for _, ct := range types {
		typ, _ := ct.ColumnType()
		have[ct.Name()] = strings.ToUpper(typ)
	}
	for _, c := range columnsFor(cat) {
		want := columnType(SQLite, c.field)
		switch got, ok := have[c.name]; {
		case !ok:
			t.Errorf("field %q has no column: add a migration with\n  sqlite: ALTER TABLE %s ADD COLUMN %s;\n  mysql:  ALTER TABLE %s ADD COLUMN %s;",
				c.field.Partner, StagingTable, columnDDL(SQLite, c), StagingTable, columnDDL(MySQL, c))
		case got != want:
			t.Errorf("column %s is %s, fields.csv asks for %s", c.name, got, want)
		}
	}
	if want := len(columnsFor(cat)) + 15; len(have) != want {
		t.Errorf("%d staging columns, want %d (the fields, 10 metadata columns and 5 of the decision)", len(have), want)
	}
}

func TestSplitStatements(t *testing.T) {
	got := SplitStatements("-- head\nCREATE TABLE a (\n  x INT\n);\n\n-- note\nCREATE INDEX i ON a (x);\nDROP TABLE b")
	want := []string{"CREATE TABLE a (\n  x INT\n)", "CREATE INDEX i ON a (x)", "DROP TABLE b"}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("SplitStatements = %q, want %q", got, want)
	}
}

// testOptions are usable options for this package's own tests, which
// cannot reach storetest.Options (it imports this package).
func testOptions() Options {
	return Options{MaxOpenConns: 4, MaxIdleConns: 4, BusyTimeout: 5 * time.Second, ReadbackTimeout: 3 * time.Second, LookupTimeout: 5 * time.Second, LookupConns: 2,
		MaxBatch: 64, BatchWriters: 1, Clock: sysclock.Clock{}}
}

package storetest

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
)

// Harness is a report store under test and what the suite needs to look
// at it from outside.
type Harness struct {
	Store ports.ReportStore
	// Lookup reads the store's reports back for their partner.
	Lookup ports.ReportLookup
	// Archive reads the store's reports back for support, any partner's.
	Archive ports.ReportArchive
	// Row reads a stored report back as text, column by column (NULL
	// columns absent), in the forms the staging table keeps.
	Row func(ctx context.Context, id int64) (map[string]string, error)
	// Count counts the stored reports.
	Count func(ctx context.Context) (int64, error)
	// Refuse makes the store refuse every report with this credit number,
	// as a failing row would (a trigger on a real database).
	Refuse func(tb testing.TB, credit string)
	// Sweep is the store's side of the crash sweep.
	Sweep ports.SweepStore
	// Users is the store's user store, or nil.
	Users ports.UserStore
	// Schema is the store's migrator, or nil.
	Schema Schema
}

// Schema is what a store with versioned migrations offers.
type Schema interface {
	Migrate(ctx context.Context) ([]int, error)
	CheckSchema(ctx context.Context) error
}

// SQLiteHarness is a migrated SQLite store in a temp directory.
func SQLiteHarness(tb testing.TB) Harness {
	path := SQLitePath(tb)
	return gormHarness(tb, MustOpen(tb, gormstore.SQLite, path, gormstore.Options{}), gormstore.SQLite, path)
}

// MySQLHarness is a migrated MySQL store on a fresh database, with the
// default options.
func MySQLHarness(tb testing.TB) Harness {
	dsn := MustCreateDatabase(tb)
	return gormHarness(tb, MustOpen(tb, gormstore.MySQL, dsn, gormstore.Options{}), gormstore.MySQL, dsn)
}

func gormHarness(tb testing.TB, st *gormstore.Store, driver, dsn string) Harness {
	db := mustDB(tb, driver, dsn)
	return Harness{
		Store:   st,
		Lookup:  st,
		Archive: st,
		Row:     func(ctx context.Context, id int64) (map[string]string, error) { return reportRow(ctx, db, id) },
		Count:   func(ctx context.Context) (int64, error) { return countReports(ctx, db) },
		Users:   st,
		Schema:  st,
		Sweep:   st,
		Refuse: func(tb testing.TB, credit string) {
			tb.Helper()
			name := fmt.Sprintf("refuse_%x", credit)
			ddl := fmt.Sprintf(`CREATE TRIGGER %s BEFORE INSERT ON %s WHEN NEW.numero_credito = '%s'
BEGIN SELECT RAISE(ABORT, 'refused by the test'); END`, name, gormstore.StagingTable, credit)
			if driver == gormstore.MySQL {
				ddl = fmt.Sprintf(`CREATE TRIGGER %s BEFORE INSERT ON %s FOR EACH ROW
BEGIN IF NEW.numero_credito = '%s' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused by the test'; END IF; END`,
					name, gormstore.StagingTable, credit)
			}
			if err := db.Exec(ddl).Error; err != nil {
				tb.Fatalf("create trigger: %v", err)
			}
		},
	}
}

// FakeHarness is the in-memory fake of test/fakes.
func FakeHarness(tb testing.TB) Harness {
	m := fakes.NewReportStore()
	cat := domain.DefaultCatalogue()
	return Harness{
		Store:   m,
		Lookup:  m,
		Archive: m,
		Sweep:   m,
		Row: func(_ context.Context, id int64) (map[string]string, error) {
			r, err := m.Row(id)
			if err != nil {
				return nil, err
			}
			return stagedText(cat, r), nil
		},
		Count: func(context.Context) (int64, error) { return int64(m.Count()), nil },
		Refuse: func(_ testing.TB, credit string) {
			m.Refuse(func(r domain.StagedReport) error {
				if r.Report.Text("numero_credito") == credit {
					return fmt.Errorf("refused by the test")
				}
				return nil
			})
		},
	}
}

// stagedText is the text a staging row would hold for r.
func stagedText(cat *domain.Catalogue, r domain.StagedReport) map[string]string {
	query, args := gormstore.StagingInsert(gormstore.SQLite, cat, r)
	cols, _, _ := strings.Cut(query[strings.Index(query, "(")+1:], ")")
	names := strings.Split(cols, ", ")
	out := map[string]string{}
	for i, n := range names {
		if args[i] != nil && i > 0 {
			out[n] = fmt.Sprint(args[i])
		}
	}
	return out
}

package gormstore_test

import (
	"context"
	"database/sql"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
)

// nextField is what the next engineer does to add a field: a line in
// fields.csv and a migration that adds its column, written as
// migrations/README.md says.
func nextField(t *testing.T) (*domain.Catalogue, []gormstore.Migration) {
	t.Helper()
	cat, err := domain.LoadCatalogue(strings.NewReader(strings.TrimRight(domain.FieldsCSV(), "\n") +
		"\n93,Código de Campaña,codigo_campana,string,no,max=40,control\n"))
	if err != nil {
		t.Fatal(err)
	}
	shipped := gormstore.Migrations()
	next := gormstore.Migration{
		Version: shipped[len(shipped)-1].Version + 1, Name: "field codigo_campana",
		SQLite: []string{"ALTER TABLE partner_disbursement_staging ADD COLUMN codigo_campana TEXT NULL"},
		MySQL:  []string{"ALTER TABLE partner_disbursement_staging ADD COLUMN codigo_campana VARCHAR(40) NULL"},
	}
	return cat, append(shipped, next)
}

// storeWith stores one report mapped by cat, with extra members.
func storeWith(t *testing.T, st *gormstore.Store, cat *domain.Catalogue, credit string, extra map[string]any) int64 {
	t.Helper()
	now := time.Now().UTC()
	body := fixture.Minimal(now, credit)
	for k, v := range extra {
		body[k] = v
	}
	rep, err := cat.MapReport(fixture.Members(body), fixture.FileRules(), now)
	if err != nil {
		t.Fatal(err)
	}
	rec := domain.IdempotencyRecord{User: "acme", KeyHash: strings.Repeat("a", 60) + credit[len(credit)-4:],
		PayloadSHA256: strings.Repeat("b", 64), State: domain.KeyDone, Nonce: strings.Repeat("c", 32),
		CreatedAt: now, ExpiresAt: now.Add(time.Hour)}
	id, _, err := st.StoreReport(context.Background(), domain.StagedReport{Report: rep, ReceivedAt: now,
		PartnerUser: "acme", PayloadSHA256: rec.PayloadSHA256}, rec)
	if err != nil {
		t.Fatalf("StoreReport: %v", err)
	}
	return id
}

// released is a database as the releases before a migration left it: the
// store that migrated it (closed before the upgrade) and a handle of the
// test's own, to write rows as those releases did.
type released struct {
	driver, dsn string
	old         *gormstore.Store
	db          *sql.DB
}

// onReleasedBefore runs fn on SQLite and on MariaDB, each a parallel
// subtest on a fresh database migrated up to migration version, not
// including it.
func onReleasedBefore(t *testing.T, version int, fn func(t *testing.T, r released)) {
	var before []gormstore.Migration
	for _, m := range gormstore.Migrations() {
		if m.Version < version {
			before = append(before, m)
		}
	}
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		t.Run(driver, func(t *testing.T) {
			t.Parallel()
			r := released{driver: driver, dsn: storetest.FreshDSN(t, driver)}
			r.old = openStore(t, driver, r.dsn, domain.DefaultCatalogue(), before)
			if _, err := r.old.Migrate(context.Background()); err != nil {
				t.Fatal(err)
			}
			db, err := storetest.OpenSQL(driver, r.dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = db.Close() })
			r.db = db
			fn(t, r)
		})
	}
}

// openStore opens a store of cat with migrations migs (nil: the shipped
// ones), unmigrated, closed at cleanup.
func openStore(t *testing.T, driver, dsn string, cat *domain.Catalogue, migs []gormstore.Migration) *gormstore.Store {
	t.Helper()
	st, err := gormstore.Open(driver, dsn, storetest.WithOptions(driver, gormstore.Options{Migrations: migs}), cat)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = st.Close() })
	return st
}

// TestMigrationAddsAField proves the migration scheme on the next field,
// four ways: a fresh SQLite and MariaDB, and a SQLite and MariaDB that
// run the released schema with rows in them and are then upgraded.
func TestMigrationAddsAField(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	cat, migs := nextField(t)
	last := migs[len(migs)-1].Version
	for _, driver := range []string{gormstore.SQLite, gormstore.MySQL} {
		t.Run(driver+"/fresh", func(t *testing.T) {
			t.Parallel()
			d := storetest.FreshDSN(t, driver)
			st := openStore(t, driver, d, cat, migs)
			applied, err := st.Migrate(ctx)
			if err != nil || len(applied) != len(migs) {
				t.Fatalf("Migrate = %v, %v; want all %d", applied, err, len(migs))
			}
			id := storeWith(t, st, cat, "CR-NEXT-0001", map[string]any{"Código de Campaña": "PRIMAVERA-26"})
			if got := storetest.ReportRow(t, driver, d, id)["codigo_campana"]; got != "PRIMAVERA-26" {
				t.Fatalf("codigo_campana = %q, want PRIMAVERA-26", got)
			}
		})
		t.Run(driver+"/upgraded", func(t *testing.T) {
			t.Parallel()
			d := storetest.FreshDSN(t, driver)
			old := openStore(t, driver, d, domain.DefaultCatalogue(), nil)
			if _, err := old.Migrate(ctx); err != nil {
				t.Fatal(err)
			}
			oldID := storeWith(t, old, domain.DefaultCatalogue(), "CR-OLD-0001", nil)
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			// The new field without its migration: refused by name, not
			// discovered on the first report.
			if _, err := openStore(t, driver, d, cat, nil).Migrate(ctx); err == nil || !strings.Contains(err.Error(), "codigo_campana") {
				t.Fatalf("Migrate without the field's migration = %v; want an error naming codigo_campana", err)
			}
			st := openStore(t, driver, d, cat, migs)
			applied, err := st.Migrate(ctx)
			if err != nil || len(applied) != 1 || applied[0] != last {
				t.Fatalf("Migrate = %v, %v; want [%d]", applied, err, last)
			}
			row := storetest.ReportRow(t, driver, d, oldID)
			if row["numero_credito"] != "CR-OLD-0001" || row["codigo_campana"] != "" {
				t.Fatalf("the row stored before the upgrade reads %q / %q", row["numero_credito"], row["codigo_campana"])
			}
			id := storeWith(t, st, cat, "CR-NEXT-0002", map[string]any{"codigo_campana": "VERANO"})
			if got := storetest.ReportRow(t, driver, d, id)["codigo_campana"]; got != "VERANO" {
				t.Fatalf("codigo_campana = %q, want VERANO", got)
			}
		})
	}
}

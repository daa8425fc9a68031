package storetest

import (
	"context"
	"database/sql"
	"fmt"
	"testing"
	"time"

	"github.com/ncruces/go-sqlite3/gormlite"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/domain"
)

// OpenDB opens a handle of its own on a store's database (driver and DSN
// as given to gormstore.Open), for tests and tools that look at the rows
// or measure the database without the service. Close it with CloseDB.
func OpenDB(driver, dsn string) (*gorm.DB, error) {
	var dial gorm.Dialector
	switch driver {
	case gormstore.SQLite:
		dial = gormlite.Open(gormstore.SQLiteDSN(dsn, Options(gormstore.SQLite).BusyTimeout))
	case gormstore.MySQL:
		d, err := gormstore.MySQLDSN(dsn)
		if err != nil {
			return nil, err
		}
		dial = mysql.New(mysql.Config{DSN: d, SkipInitializeWithVersion: true})
	default:
		return nil, fmt.Errorf("driver %q", driver)
	}
	return gorm.Open(dial, &gorm.Config{Logger: logger.Discard, SkipDefaultTransaction: true})
}

// CloseDB closes a handle from OpenDB.
func CloseDB(db *gorm.DB) {
	if d, err := db.DB(); err == nil {
		_ = d.Close()
	}
}

// OpenSQL is OpenDB's database/sql pool.
func OpenSQL(driver, dsn string) (*sql.DB, error) {
	db, err := OpenDB(driver, dsn)
	if err != nil {
		return nil, err
	}
	return db.DB()
}

// mustDB opens a handle for one test, closed at its end.
func mustDB(tb testing.TB, driver, dsn string) *gorm.DB {
	tb.Helper()
	db, err := OpenDB(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { CloseDB(db) })
	return db
}

// CountReports counts the staging rows of the store at driver and dsn.
func CountReports(tb testing.TB, driver, dsn string) int64 {
	tb.Helper()
	db, err := OpenDB(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer CloseDB(db)
	n, err := countReports(context.Background(), db)
	if err != nil {
		tb.Fatal(err)
	}
	return n
}

func countReports(ctx context.Context, db *gorm.DB) (int64, error) {
	var n int64
	err := db.WithContext(ctx).Table(gormstore.StagingTable).Count(&n).Error
	return n, err
}

// ReportRow reads staging row id of the store at driver and dsn back as
// text, column by column (NULL columns are absent).
func ReportRow(tb testing.TB, driver, dsn string, id int64) map[string]string {
	tb.Helper()
	db, err := OpenDB(driver, dsn)
	if err != nil {
		tb.Fatal(err)
	}
	defer CloseDB(db)
	row, err := reportRow(context.Background(), db, id)
	if err != nil {
		tb.Fatal(err)
	}
	return row
}

// reportRow reads a staging row as text. Dates read as YYYY-MM-DD and
// decimals as written, whatever the driver, so tests compare one form.
func reportRow(ctx context.Context, db *gorm.DB, id int64) (map[string]string, error) {
	rows, err := db.WithContext(ctx).Raw(fmt.Sprintf("SELECT * FROM %s WHERE id = ?", gormstore.StagingTable), id).Rows()
	if err != nil {
		return nil, fmt.Errorf("read staging row: %w", err)
	}
	defer rows.Close()
	cols, err := rows.Columns()
	if err != nil {
		return nil, err
	}
	if !rows.Next() {
		return nil, fmt.Errorf("staging row %d: %w", id, domain.ErrNotFound)
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	if err := rows.Scan(ptrs...); err != nil {
		return nil, err
	}
	cat := domain.DefaultCatalogue()
	out := map[string]string{}
	for i, c := range cols {
		switch v := vals[i].(type) {
		case nil:
		case time.Time:
			if f, ok := cat.ByInternal(c); ok && f.Type == domain.TypeDate {
				out[c] = v.Format("2006-01-02")
			} else {
				out[c] = v.UTC().Format(time.RFC3339Nano)
			}
		case []byte:
			out[c] = string(v)
		default:
			out[c] = fmt.Sprint(v)
		}
	}
	return out, rows.Err()
}

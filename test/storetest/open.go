// Package storetest opens real stores for tests: a SQLite file in a temp
// directory, and a fresh database on the MariaDB/MySQL server named by
// DISB_TEST_MYSQL_DSN. Without that variable MySQL tests skip, except
// under CI=true, where they fail.
package storetest

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/lender/disbursementd/adapters/gormstore"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
)

// EnvDSN names the variable with the test server's DSN.
const EnvDSN = "DISB_TEST_MYSQL_DSN"

// Options are the options the service opens a store of driver with under
// the default configuration, on the system's clock: the one source of the
// numbers tests open stores with. They are app.StoreOptions' (a test in
// test/ holds them together); built here from config alone, so that the
// tools that use this package (test/load) need not build the service.
func Options(driver string) gormstore.Options {
	cfg := config.Defaults()
	cfg.Store.Driver = driver
	s := cfg.Store
	return gormstore.Options{
		MaxOpenConns: s.PoolSize(), MaxIdleConns: s.IdleConns(),
		ConnMaxLifetime: s.ConnMaxLifetime, ConnMaxIdleTime: s.ConnMaxIdleTime,
		BusyTimeout: s.BusyTimeout, ReadbackTimeout: s.ReadbackTimeout,
		LookupTimeout: s.LookupTimeout, LookupConns: s.LookupConns,
		LockWaitTimeout: s.LockWaitTimeout,
		TLSCAFile:       s.TLSCAFile, TLSServerName: s.TLSServerName,
		MaxBatch: s.MaxBatch, BatchWriters: s.Writers(), GaleraWriters: s.GaleraWriters(),
		Clock: sysclock.Clock{},
	}
}

// WithOptions is opts with each field left at zero taken from Options
// (durations too: a test cannot ask for "never" here), except
// GaleraWriters: a store the suite opens on a Galera node keeps every
// writer (concurrent batches on one node, the harder case) unless the
// test asks for the service's one.
func WithOptions(driver string, opts gormstore.Options) gormstore.Options {
	def := Options(driver)
	or := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	orDur := func(v *time.Duration, d time.Duration) {
		if *v == 0 {
			*v = d
		}
	}
	or(&opts.MaxOpenConns, def.MaxOpenConns)
	or(&opts.MaxIdleConns, def.MaxIdleConns)
	or(&opts.MaxBatch, def.MaxBatch)
	or(&opts.BatchWriters, def.BatchWriters)
	orDur(&opts.ConnMaxLifetime, def.ConnMaxLifetime)
	orDur(&opts.ConnMaxIdleTime, def.ConnMaxIdleTime)
	orDur(&opts.BusyTimeout, def.BusyTimeout)
	orDur(&opts.ReadbackTimeout, def.ReadbackTimeout)
	orDur(&opts.LookupTimeout, def.LookupTimeout)
	or(&opts.LookupConns, def.LookupConns)
	orDur(&opts.LockWaitTimeout, def.LockWaitTimeout)
	if opts.Clock == nil {
		opts.Clock = def.Clock
	}
	return opts
}

// MustOpen opens a migrated store, closed at cleanup, with opts
// completed by WithOptions.
func MustOpen(tb testing.TB, driver, dsn string, opts gormstore.Options) *gormstore.Store {
	tb.Helper()
	st, err := gormstore.Open(driver, dsn, WithOptions(driver, opts), domain.DefaultCatalogue())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { _ = st.Close() })
	if _, err := st.Migrate(context.Background()); err != nil {
		tb.Fatal(err)
	}
	return st
}

// SQLitePath is a fresh SQLite file in the test's temp directory.
func SQLitePath(tb testing.TB) string { return filepath.Join(tb.TempDir(), "test.db") }

// FreshDSN is an empty database of driver: a SQLite file in the test's
// temp directory, or a database on the test server (MustCreateDatabase).
func FreshDSN(tb testing.TB, driver string) string {
	tb.Helper()
	if driver == gormstore.MySQL {
		return MustCreateDatabase(tb)
	}
	return SQLitePath(tb)
}

// MustOpenSQLite opens a migrated SQLite store in a temp directory.
func MustOpenSQLite(tb testing.TB) *gormstore.Store {
	tb.Helper()
	return MustOpen(tb, gormstore.SQLite, SQLitePath(tb), gormstore.Options{})
}

// ServerDSN returns the test server's DSN, skipping (or, in CI, failing)
// the test when there is none.
func ServerDSN(tb testing.TB) string {
	tb.Helper()
	return needEnv(tb, EnvDSN, "the MySQL tests against a real MariaDB", "a throwaway MariaDB when mariadbd is installed")
}

// needEnv returns the variable name's value; without one it skips the
// test, naming what `bash test/run` starts (starts), or fails it in CI,
// which must run what (see .ci/run).
func needEnv(tb testing.TB, name, what, starts string) string {
	tb.Helper()
	v := os.Getenv(name)
	if v == "" {
		if os.Getenv("CI") == "true" {
			tb.Fatalf("%s is not set: CI must run %s (see .ci/run)", name, what)
		}
		tb.Skipf("%s not set; `bash test/run` starts %s", name, starts)
	}
	return v
}

// MustCreateDatabase creates an empty database on the test server and
// returns a DSN for it; the database is dropped at cleanup.
func MustCreateDatabase(tb testing.TB) string {
	tb.Helper()
	cfg, err := mysqldrv.ParseDSN(ServerDSN(tb))
	if err != nil {
		tb.Fatalf("%s: %v", EnvDSN, err)
	}
	cfg.DBName = createDatabase(tb, cfg, "disb_test_", "test MariaDB")
	return cfg.FormatDSN()
}

// createDatabase creates an empty database named prefix and 12 random hex
// digits on the server cfg reaches (what names it in a failure), drops it
// at cleanup, and returns its name.
func createDatabase(tb testing.TB, cfg *mysqldrv.Config, prefix, what string) string {
	tb.Helper()
	admin, closeAdmin, err := adminDB(cfg)
	if err != nil {
		tb.Fatalf("connect to %s: %v", what, err)
	}
	defer closeAdmin()
	name := prefix + randomHex(6)
	if err := admin.Exec("CREATE DATABASE " + name + " CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci").Error; err != nil {
		tb.Fatalf("create database: %v", err)
	}
	tb.Cleanup(func() {
		if a, closeA, err := adminDB(cfg); err == nil {
			a.Exec("DROP DATABASE IF EXISTS " + name)
			closeA()
		}
	})
	return name
}

// adminDB connects to the test server without a database.
func adminDB(cfg *mysqldrv.Config) (*gorm.DB, func(), error) {
	c := *cfg
	c.DBName = ""
	db, err := gorm.Open(mysql.Open(c.FormatDSN()), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		return nil, nil, err
	}
	return db, func() {
		if d, err := db.DB(); err == nil {
			_ = d.Close()
		}
	}, nil
}

// MustOpenMySQL opens a migrated MySQL store on a fresh database, with
// the default options (the bounded pool).
func MustOpenMySQL(tb testing.TB) *gormstore.Store {
	tb.Helper()
	return MustOpen(tb, gormstore.MySQL, MustCreateDatabase(tb), gormstore.Options{})
}

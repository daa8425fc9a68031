// Package gormstore keeps reports, users and idempotency records in SQL
// through GORM: SQLite (the embedded default, pure Go) or MySQL/MariaDB.
package gormstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/glebarez/sqlite"
	mysqldrv "github.com/go-sql-driver/mysql"
	"gorm.io/driver/mysql"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Drivers.
const (
	SQLite = "sqlite"
	MySQL  = "mysql"
)

// Options configure the connection pool.
type Options struct {
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration
	ConnMaxIdleTime time.Duration
	BusyTimeout     time.Duration // SQLite only
}

// Store is the GORM-backed store.
type Store struct {
	db      *gorm.DB
	driver  string
	cat     *domain.Catalogue
	staging string // table name
	columns []column
}

var (
	_ ports.ReportStore    = (*Store)(nil)
	_ ports.ReconcileStore = (*Store)(nil)
	_ ports.UserStore      = (*Store)(nil)
)

// StagingTable is the staging table ("tabla temporal").
const StagingTable = "partner_disbursement_staging"

// Open connects to the database. It does not require the server to be up
// (MySQL connects lazily), so the service can start and report not ready.
func Open(driver, dsn string, opts Options, cat *domain.Catalogue) (*Store, error) {
	var dial gorm.Dialector
	switch driver {
	case SQLite:
		if dsn == "" {
			return nil, errors.New("store.dsn: empty SQLite path")
		}
		if dir := filepath.Dir(dsn); dir != "." {
			if err := os.MkdirAll(dir, 0o750); err != nil {
				return nil, fmt.Errorf("store.dsn: %w", err)
			}
		}
		dial = sqlite.Open(SQLiteDSN(dsn, opts.BusyTimeout))
	case MySQL:
		d, err := MySQLDSN(dsn)
		if err != nil {
			return nil, err
		}
		// No version query at open: the database may come up later, and
		// the service must start, stay not ready and reconnect.
		dial = mysql.New(mysql.Config{DSN: d, SkipInitializeWithVersion: true})
	default:
		return nil, fmt.Errorf("store.driver: %q is not sqlite or mysql", driver)
	}
	db, err := gorm.Open(dial, &gorm.Config{
		Logger:                 logger.Discard,
		TranslateError:         true,
		SkipDefaultTransaction: true,
		DisableAutomaticPing:   true,
		// SQLite: the 101-column INSERT is parsed once per connection, not
		// per report. MySQL interpolates instead (one round trip a
		// statement, where a prepared one in a transaction costs three).
		PrepareStmt: driver == SQLite,
		NowFunc:     func() time.Time { return time.Now().UTC() },
	})
	if err != nil {
		return nil, fmt.Errorf("open %s store: %w", driver, err)
	}
	sqlDB, err := db.DB()
	if err != nil {
		return nil, err
	}
	switch {
	case opts.MaxOpenConns > 0:
		sqlDB.SetMaxOpenConns(opts.MaxOpenConns)
	case driver == SQLite:
		// SQLite runs one writer at a time; more connections only wait on
		// each other in its busy handler, which sleeps up to 100 ms a try.
		// One connection queues them in Go instead, fairly and at once.
		sqlDB.SetMaxOpenConns(1)
	}
	if opts.MaxIdleConns > 0 {
		sqlDB.SetMaxIdleConns(opts.MaxIdleConns)
	}
	sqlDB.SetConnMaxLifetime(opts.ConnMaxLifetime)
	sqlDB.SetConnMaxIdleTime(opts.ConnMaxIdleTime)
	return &Store{db: db, driver: driver, cat: cat, staging: StagingTable, columns: columnsFor(cat)}, nil
}

func init() {
	// The driver prints connection errors on its own; they reach the
	// service's log through the errors it returns.
	_ = mysqldrv.SetLogger(log.New(io.Discard, "", 0))
}

// SQLiteDSN adds the pragmas the service relies on: WAL, a busy timeout,
// full sync and immediate write transactions.
func SQLiteDSN(path string, busy time.Duration) string {
	if busy <= 0 {
		busy = 5 * time.Second
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	return "file:" + path + "?" + q.Encode()
}

// MySQLDSN checks a go-sql-driver DSN and adds parseTime, loc=UTC and
// charset=utf8mb4 when missing.
func MySQLDSN(dsn string) (string, error) {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("store.dsn: %w", err)
	}
	cfg.ParseTime = true
	cfg.Loc = time.UTC
	cfg.InterpolateParams = true
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	if _, ok := cfg.Params["charset"]; !ok {
		cfg.Params["charset"] = "utf8mb4"
	}
	if cfg.Collation == "" || !strings.HasPrefix(cfg.Collation, "utf8mb4") {
		cfg.Collation = "utf8mb4_unicode_ci"
	}
	return cfg.FormatDSN(), nil
}

// DB returns the GORM handle (for tests and tools).
func (s *Store) DB() *gorm.DB { return s.db }

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.PingContext(ctx)
}

// Close closes the pool.
func (s *Store) Close() error {
	sqlDB, err := s.db.DB()
	if err != nil {
		return err
	}
	return sqlDB.Close()
}

func isDuplicate(err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) && me.Number == 1062 {
		return true
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed")
}

// Package gormstore keeps reports, users, idempotency records and the
// shared login throttle in SQL through GORM: SQLite (the embedded default,
// pure Go) or MySQL/MariaDB.
package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

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

// Defaults of the options left at zero.
const (
	DefaultMaxBatch         = 64 // store.max_batch
	DefaultMySQLMaxOpen     = 32 // store.max_open_conns on MySQL (contract §7 "Overload")
	DefaultMySQLWriters     = 4  // store.batch_writers on MySQL
	maxSQLiteReaders        = 4
	defaultSQLiteBusy       = 5 * time.Second
	defaultReadbackDeadline = 3 * time.Second
)

// Options configure the pools, the group commit and the clock.
type Options struct {
	// MaxOpenConns bounds the pool (store.max_open_conns). 0: 32 on MySQL;
	// on SQLite, writes always use one connection and reads at most
	// min(MaxOpenConns, 4) (4 when 0).
	MaxOpenConns    int
	MaxIdleConns    int
	ConnMaxLifetime time.Duration
	ConnMaxIdleTime time.Duration
	BusyTimeout     time.Duration // SQLite only; 0: 5 s
	// MaxBatch bounds the reports one commit carries (store.max_batch);
	// 0: 64.
	MaxBatch int
	// BatchWriters is the number of group-commit writers
	// (store.batch_writers); 0: 1 on SQLite, 4 on MySQL.
	BatchWriters int
	// Clock makes every timestamp the store writes itself (required).
	Clock ports.Clock
	// Migrations are the schema changes Migrate applies; nil: the released
	// ones (Migrations). Tests add one to prove the next field's path.
	Migrations []Migration
}

// Store is the GORM-backed store. Writes go through db; reads that may run
// beside the writer go through read (on SQLite a separate pool, which WAL
// lets read while the one writer connection writes; on MySQL the same).
type Store struct {
	db, read   *gorm.DB
	wsql       *sql.DB // db's pool, for the group commit's statements
	driver     string
	clock      ports.Clock
	catalogue  *domain.Catalogue // the fields the staging columns hold
	columns    []column
	sql        statements
	rsql       *sql.DB   // read's pool
	wstmts     stmtCache // the batch's statements (SQLite: on the writer connection)
	rstmts     stmtCache // SQLite: the hot reads on the read pool
	batch      *committer
	readback   time.Duration // bound of the read that settles an unknown commit
	migrations []Migration
	// beforeCommit, set only by tests (export_test.go), runs before each
	// batch's COMMIT: it holds a transaction open as a slow network would.
	beforeCommit func()
	dsn          string           // what the pools were opened with, for openPool
	connLife     [2]time.Duration // Options.ConnMaxLifetime and ConnMaxIdleTime, for openPool
}

var (
	_ ports.ReportStore    = (*Store)(nil)
	_ ports.ReconcileStore = (*Store)(nil)
	_ ports.UserStore      = (*Store)(nil)
)

// StagingTable is the staging table ("tabla temporal").
const StagingTable = "partner_disbursement_staging"

// Open connects to the database and starts the group-commit writers. It
// does not require the server to be up (MySQL connects lazily), so the
// service can start and report not ready. Close stops what it started.
func Open(driver, dsn string, opts Options, cat *domain.Catalogue) (*Store, error) {
	if opts.Clock == nil {
		return nil, errors.New("gormstore: Options.Clock is required")
	}
	s := &Store{driver: driver, clock: opts.Clock, catalogue: cat, columns: columnsFor(cat), readback: defaultReadbackDeadline,
		migrations: opts.Migrations, connLife: [2]time.Duration{opts.ConnMaxLifetime, opts.ConnMaxIdleTime}}
	if s.migrations == nil {
		s.migrations = Migrations()
	}
	var err error
	switch driver {
	case SQLite:
		err = s.openSQLite(dsn, opts)
	case MySQL:
		err = s.openMySQL(dsn, opts)
	default:
		return nil, fmt.Errorf("store.driver: %q is not sqlite or mysql", driver)
	}
	if err != nil {
		return nil, err
	}
	s.sql = buildStatements(driver, s.columns)
	writers := opts.BatchWriters
	if writers <= 0 {
		writers = 1
		if driver == MySQL {
			writers = DefaultMySQLWriters
		}
	}
	maxBatch := opts.MaxBatch
	if maxBatch <= 0 {
		maxBatch = DefaultMaxBatch
	}
	s.batch = newCommitter(s, writers, maxBatch)
	return s, nil
}

// gormConfig is GORM's configuration. The group commit's statements are
// prepared by the store itself (stmtCache; on MySQL once per connection,
// then one round trip each); GORM's own queries are interpolated on MySQL
// (one round trip, where preparing each would cost three).
func (s *Store) gormConfig() *gorm.Config {
	return &gorm.Config{
		Logger:                 logger.Discard,
		TranslateError:         true,
		SkipDefaultTransaction: true,
		DisableAutomaticPing:   true,
		NowFunc:                func() time.Time { return s.clock.Now().UTC() },
	}
}

// openSQLite opens one writer connection (every write, the group commit
// included: SQLite runs one writer at a time, and one connection queues
// writers in Go, fairly, instead of in SQLite's sleeping busy handler) and
// a small read pool beside it.
func (s *Store) openSQLite(path string, opts Options) error {
	if path == "" {
		return errors.New("store.dsn: empty SQLite path")
	}
	if dir := filepath.Dir(path); dir != "." {
		if err := os.MkdirAll(dir, 0o750); err != nil {
			return fmt.Errorf("store.dsn: %w", err)
		}
	}
	if err := prepareSQLiteFiles(path); err != nil {
		return err
	}
	// The -wal and journal files take the database file's mode (the
	// driver's modeof, which needs the file: prepareSQLiteFiles made it).
	dsn := SQLiteDSN(path, opts.BusyTimeout) + "&modeof=" + url.QueryEscape(path)
	s.dsn = dsn
	var err error
	if s.db, err = gorm.Open(sqliteDialector(dsn), s.gormConfig()); err != nil {
		return fmt.Errorf("open sqlite store: %w", err)
	}
	if s.read, err = gorm.Open(sqliteDialector(dsn), s.gormConfig()); err != nil {
		return errors.Join(fmt.Errorf("open sqlite store: %w", err), s.closePools())
	}
	w, r, err := s.pools()
	if err != nil {
		return errors.Join(err, s.closePools())
	}
	w.SetMaxOpenConns(1)
	w.SetMaxIdleConns(1)
	w.SetConnMaxLifetime(opts.ConnMaxLifetime)
	readers := maxSQLiteReaders
	if opts.MaxOpenConns > 0 {
		readers = min(opts.MaxOpenConns, maxSQLiteReaders)
	}
	r.SetMaxOpenConns(readers)
	r.SetMaxIdleConns(readers)
	r.SetConnMaxLifetime(opts.ConnMaxLifetime)
	r.SetConnMaxIdleTime(opts.ConnMaxIdleTime)
	s.wsql, s.rsql = w, r
	s.wstmts.db, s.rstmts.db = w, r
	return nil
}

// openMySQL opens one bounded pool: a request that finds it busy waits for
// a connection within its context, instead of meeting "Too many
// connections" from the server.
func (s *Store) openMySQL(dsn string, opts Options) error {
	d, err := MySQLDSN(dsn)
	if err != nil {
		return err
	}
	s.dsn = d
	// No version query at open: the database may come up later, and the
	// service must start, stay not ready and reconnect.
	if s.db, err = gorm.Open(mysql.New(mysql.Config{DSN: d, SkipInitializeWithVersion: true}), s.gormConfig()); err != nil {
		return fmt.Errorf("open mysql store: %w", err)
	}
	s.read = s.db
	if s.wsql, err = s.db.DB(); err != nil {
		return err
	}
	s.rsql = s.wsql
	s.wstmts.db = s.wsql
	maxOpen := opts.MaxOpenConns
	if maxOpen <= 0 {
		maxOpen = DefaultMySQLMaxOpen
	}
	s.wsql.SetMaxOpenConns(maxOpen)
	idle := opts.MaxIdleConns
	if idle <= 0 {
		idle = maxOpen
	}
	s.wsql.SetMaxIdleConns(min(idle, maxOpen))
	s.wsql.SetConnMaxLifetime(opts.ConnMaxLifetime)
	s.wsql.SetConnMaxIdleTime(opts.ConnMaxIdleTime)
	return nil
}

// openPool opens another pool of at most n connections on the store's
// database, for a component that must never wait for, nor take, the
// connections reports use (the login throttle). Its owner closes it.
func (s *Store) openPool(n int) (*gorm.DB, *sql.DB, error) {
	dialector := sqliteDialector(s.dsn)
	if s.driver == MySQL {
		dialector = mysql.New(mysql.Config{DSN: s.dsn, SkipInitializeWithVersion: true})
	}
	g, err := gorm.Open(dialector, s.gormConfig())
	if err != nil {
		return nil, nil, fmt.Errorf("open a pool of its own: %w", err)
	}
	pool, err := g.DB()
	if err != nil {
		return nil, nil, err
	}
	pool.SetMaxOpenConns(n)
	pool.SetMaxIdleConns(n)
	pool.SetConnMaxLifetime(s.connLife[0])
	pool.SetConnMaxIdleTime(s.connLife[1])
	return g, pool, nil
}

func (s *Store) pools() (w, r *sql.DB, err error) {
	if w, err = s.db.DB(); err != nil {
		return nil, nil, err
	}
	if r, err = s.read.DB(); err != nil {
		return nil, nil, err
	}
	return w, r, nil
}

func init() {
	// The driver prints connection errors on its own; they reach the
	// service's log through the errors it returns.
	_ = mysqldrv.SetLogger(log.New(io.Discard, "", 0))
}

// sqliteTimeLayout is how times are written to SQLite: the layout of the
// earlier driver (modernc.org/sqlite), so that files written before read
// the same, and times of one zone (UTC) compare in order as text.
const sqliteTimeLayout = "2006-01-02 15:04:05.999999999-07:00"

// SQLiteDSN adds the pragmas the service relies on: WAL, a busy timeout,
// full sync and immediate write transactions, and the time layout.
func SQLiteDSN(path string, busy time.Duration) string {
	if busy <= 0 {
		busy = defaultSQLiteBusy
	}
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busy.Milliseconds()))
	q.Add("_pragma", "synchronous(FULL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Set("_txlock", "immediate")
	q.Set("_timefmt", sqliteTimeLayout)
	return "file:" + path + "?" + q.Encode()
}

// MySQLDSN checks a go-sql-driver DSN and adds parseTime, loc=UTC and
// charset=utf8mb4 when missing. clientFoundRows is turned off whatever the
// DSN says: the store reads "rows affected" as rows changed (a claim
// taken, a user updated), which that flag would turn into rows matched.
func MySQLDSN(dsn string) (string, error) {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("store.dsn: %w", domain.MaskError(err))
	}
	cfg.ClientFoundRows = false
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

// Ping checks that the database answers.
func (s *Store) Ping(ctx context.Context) error { return s.rsql.PingContext(ctx) }

// Close stops the group-commit writers (reports still queued get an
// error; a batch under way finishes first), then closes the pools.
func (s *Store) Close() error {
	s.batch.close()
	s.wstmts.close()
	s.rstmts.close()
	return s.closePools()
}

func (s *Store) closePools() error {
	var errs []error
	pools := []*gorm.DB{s.db}
	if s.read != s.db {
		pools = append(pools, s.read)
	}
	for _, g := range pools {
		if g == nil {
			continue
		}
		if d, err := g.DB(); err == nil {
			errs = append(errs, d.Close())
		}
	}
	return errors.Join(errs...)
}

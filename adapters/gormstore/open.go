// Package gormstore keeps reports, users, idempotency records and the
// shared login throttle in SQL through GORM: SQLite (the embedded default,
// pure Go) or MySQL/MariaDB.
package gormstore

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync/atomic"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// Drivers.
const (
	SQLite = "sqlite"
	MySQL  = "mysql"
)

// Store is the GORM-backed store. It holds one handle per pool: write,
// through which every write goes, read, for the reads that may run
// beside the writer (on SQLite a pool of its own, which WAL lets read
// while the one writer connection writes; on MySQL the same pool), and
// look, for partners' look-ups (on MySQL a pool of its own, whose
// sessions bound each statement; on SQLite the readers' pool), and
// commit, the group commit's batches (on MySQL a pool of its own, see
// openMySQL; on SQLite the write pool). Each pool carries GORM and the
// hot path's prepared statements over its one *sql.DB.
type Store struct {
	write, read *pool
	look        *pool
	commit      *pool
	lookupLimit time.Duration // store.lookup_timeout
	driver      string
	clock       ports.Clock
	eventSlack  time.Duration     // Options.EventSlack
	catalogue   *domain.Catalogue // the fields the staging columns hold
	columns     []column
	sql         statements
	batch       *committer
	readback    time.Duration // bound of the read that settles an unknown commit
	conflicts   atomic.Int64  // batches run again or split after a 1213 (Conflicts)
	rowBatches  atomic.Int64  // batches committed by commitRows
	rowChecks   atomic.Int64  // chunks whose rows were read back (readBack)
	rowReturns  atomic.Int64  // chunks whose ids their INSERT returned (insertReturning)
	rowMisses   atomic.Int64  // read-backs that found an id holding another row
	rowRefusals atomic.Int64  // multi-row statements the server refused to prepare (1461)
	// returning is whether the server answers INSERT ... RETURNING
	// (returnsUnknown until the first multi-row batch asks, returnsYes on
	// MariaDB 10.5 and later): then a chunk's staging ids come back with
	// its INSERT, and neither the auto-increment settings nor a read-back
	// are asked (insertRows).
	returning atomic.Int32
	// rowsPausedUntil (unix ns, the store's clock) keeps batches on the
	// per-report path for rowsPause after a read-back missed or the
	// server refused a multi-row PREPARE: a server that does interleave
	// ids, or holds all the statements it may, would otherwise cost every
	// batch an insert or a PREPARE, and a rollback.
	rowsPausedUntil atomic.Int64
	// listen (a listenState) and countsLock: whether and how a MySQL
	// batch reads its partners' endpoint counts (listeners.go).
	listen     atomic.Int32
	countsLock atomic.Pointer[string]
	// rowStep, set only by tests (export_test.go), replaces the
	// auto_increment_increment the server gives, so that the ids
	// insertChunk computes are wrong and readBack must see it.
	rowStep int64
	// returnedBackwards, set only by tests (export_test.go), checks an
	// INSERT's returned rows against its reports last first, as a server
	// that returned them out of order would be seen (insertReturning).
	returnedBackwards bool
	migrations        []Migration
	// beforeCommit, set only by tests (export_test.go), runs before each
	// batch's COMMIT: it holds a transaction open as a slow network would.
	beforeCommit func()
	// beforeTxCommit, set only by tests (export_test.go), runs before
	// the COMMIT of each transaction inTx runs.
	beforeTxCommit func()
	target         target     // what the pools were opened on, for openOwnPool
	bounds         poolBounds // the read pool's, for openOwnPool
}

var (
	_ ports.ReportStore = (*Store)(nil)
	_ ports.SweepStore  = (*Store)(nil)
	_ ports.UserStore   = (*Store)(nil)
)

// StagingTable is the staging table ("tabla temporal").
const StagingTable = "partner_disbursement_staging"

// Open connects to the database and starts the group-commit writers. It
// does not require the server to be up (MySQL connects lazily), so the
// service can start and report not ready; with a list of nodes it asks
// each, within a bound, which serves, and starts on the first that does
// (failover.go). Close stops what it started.
func Open(driver, dsn string, opts Options, cat *domain.Catalogue) (*Store, error) {
	if err := Check(driver, dsn, opts); err != nil {
		return nil, err
	}
	s := &Store{driver: driver, clock: opts.Clock, eventSlack: opts.EventSlack, catalogue: cat, columns: columnsFor(cat), readback: opts.ReadbackTimeout,
		migrations: opts.Migrations, lookupLimit: opts.LookupTimeout,
		bounds: poolBounds{open: opts.MaxOpenConns, idle: opts.MaxIdleConns, life: opts.ConnMaxLifetime, idleLimit: opts.ConnMaxIdleTime}}
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
	galera := 0
	if driver == MySQL {
		galera = opts.GaleraWriters
	}
	s.batch = newCommitter(s, opts.BatchWriters, galera, opts.MaxBatch)
	return s, nil
}

// openSQLite opens one writer connection (every write, the group commit
// included: SQLite runs one writer at a time, and one connection queues
// writers in Go, fairly, instead of in SQLite's sleeping busy handler) and
// a small read pool beside it.
func (s *Store) openSQLite(path string, opts Options) error {
	if path == "" {
		return errors.New("store.dsn: empty SQLite path")
	}
	if err := CheckSQLitePath(path); err != nil {
		return fmt.Errorf("store.dsn: %w", err)
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
	s.target = target{dsns: []string{SQLiteDSN(path, opts.BusyTimeout) + "&modeof=" + uriParam(path)}}
	var err error
	writer := s.bounds
	writer.open, writer.idle, writer.idleLimit = 1, 1, 0
	if s.write, err = openPool(SQLite, target{dsns: []string{s.target.dsns[0] + sqliteWriterPragmas}}, writer, s.gormConfig()); err != nil {
		return fmt.Errorf("open sqlite store: %w", err)
	}
	if s.read, err = openPool(SQLite, s.target, s.bounds, s.gormConfig()); err != nil {
		return errors.Join(fmt.Errorf("open sqlite store: %w", err), s.write.close())
	}
	s.look, s.commit = s.read, s.write
	return nil
}

// openMySQL opens one bounded pool for reports and the store's own reads:
// a request that finds it busy waits for a connection within its
// context, instead of meeting "Too many connections" from the server.
// Every connection's lock waits are bounded by lockWait (set on connect,
// through the DSN). Look-ups get a pool of their own, of lookups
// connections, whose sessions also stop any statement at the look-up
// bound (lookupDSN), so a flood of look-ups never holds the connections
// reports are written on. When the DSN lists several nodes, every pool
// dials the one node the store's nodeSet has chosen (failover.go).
func (s *Store) openMySQL(dsn string, opts Options) error {
	nodes, err := splitNodes(dsn)
	if err != nil {
		return err
	}
	dsns := make([]string, len(nodes))
	for i, n := range nodes {
		if dsns[i], err = nodeDSN(n, opts); err != nil {
			return err
		}
	}
	s.target = target{dsns: dsns}
	if len(dsns) > 1 {
		if s.target.nodes, err = newNodeSet(dsns, opts.OnNodeMove); err != nil {
			return err
		}
	}
	if s.write, err = openPool(MySQL, s.target, s.bounds, s.gormConfig()); err != nil {
		return errors.Join(fmt.Errorf("open mysql store: %w", err), s.target.close())
	}
	s.read = s.write
	look, err := s.target.each(func(d string) (string, error) { return lookupDSN(d, s.lookupLimit) })
	if err != nil {
		return errors.Join(err, s.write.close(), s.target.close())
	}
	b := s.bounds
	b.open, b.idle = opts.LookupConns, opts.LookupConns
	if s.look, err = openPool(MySQL, look, b, s.gormConfig()); err != nil {
		return errors.Join(fmt.Errorf("open mysql look-up pool: %w", err), s.write.close(), s.target.close())
	}
	// The batches' own pool: a connection prepares each statement it
	// runs, a multi-row statement per chunk size and kind (commit_rows.go),
	// and on the write pool, which every read and write shares, the
	// batches came to run on all of its connections, each holding every
	// size. Here they hold one connection per writer, and one more, so a
	// writer inside its transaction always finds a connection to prepare
	// a statement on (stmtCache.get). Its sessions run at read committed,
	// set once as each connects instead of a SET TRANSACTION round trip a
	// batch: a batch reads only its own rows, and read committed keeps
	// InnoDB from taking gap locks that would make concurrent batches
	// wait. The other pools' sessions keep the server's level (those of
	// their transactions that need read committed ask for it: inTx). On
	// a Galera node its sessions do not read causally (ownReads): a
	// batch reads only session variables and its own rows, and with
	// wsrep_sync_wait=1 its START TRANSACTION waited for the node to
	// apply what the cluster had committed (reads inside a transaction
	// never wait). A key another node took a moment ago, not yet applied
	// here, still cannot be taken twice: the batch loses certification
	// and runs again, and finds it taken (TestKeyTakenDuringLagGalera).
	b = s.bounds
	b.open, b.idle = opts.BatchWriters+1, opts.BatchWriters+1
	commit := s.target
	commit.onConnect = "SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED"
	commit.ownReads = true
	commit.onGalera = s.galeraSeen
	if s.commit, err = openPool(MySQL, commit, b, s.gormConfig()); err != nil {
		return errors.Join(fmt.Errorf("open mysql commit pool: %w", err), s.look.close(), s.write.close(), s.target.close())
	}
	return nil
}

// nodeDSN is one node's DSN as the store connects to it: a MySQLDSN with
// the CA of opts, if any, and the lock wait bound.
func nodeDSN(dsn string, opts Options) (string, error) {
	d, err := MySQLDSN(dsn)
	if err != nil {
		return "", err
	}
	if opts.TLSCAFile != "" {
		if d, err = withCA(d, opts.TLSCAFile, opts.TLSServerName); err != nil {
			return "", err
		}
	}
	return withLockWait(d, opts.LockWaitTimeout)
}

// Ping checks that the database answers and serves: on MySQL a read of
// a table and, on a Galera node, that the node is Synced in the Primary
// component (serving).
func (s *Store) Ping(ctx context.Context) error {
	if s.driver == MySQL {
		err := serving(ctx, s.read.sql)
		if err != nil && s.target.nodes != nil {
			s.target.nodes.wake()
		}
		return err
	}
	return s.read.sql.PingContext(ctx)
}

// NodePosition is the place in store.dsn's list of nodes (1 = first) of
// the node the pools use now; 0 when store.dsn names one database.
func (s *Store) NodePosition() int {
	if s.target.nodes == nil {
		return 0
	}
	return s.target.nodes.position()
}

// NodeMoves counts the times the pools moved to another node of
// store.dsn's list (failover.go); 0 without a list.
func (s *Store) NodeMoves() int64 {
	if s.target.nodes == nil {
		return 0
	}
	return s.target.nodes.Moves()
}

// Close stops the group-commit writers (reports still queued get an
// error; a batch under way finishes first), then closes the pools.
func (s *Store) Close() error {
	s.batch.close()
	errs := []error{s.write.close()}
	if s.read != s.write {
		errs = append(errs, s.read.close())
	}
	if s.commit != s.write {
		errs = append(errs, s.commit.close())
	}
	if s.look != s.read {
		errs = append(errs, s.look.close())
	}
	return errors.Join(append(errs, s.target.close())...)
}

package gormstore

import (
	"context"
	"database/sql"
	"strings"

	"github.com/lender/disbursementd/ports"
)

// SetBeforeCommit makes f run before each batch's COMMIT, so a test can
// hold a batch's transaction open (a COMMIT that reaches the database
// late). Set it before the store is used.
func SetBeforeCommit(s *Store, f func()) { s.beforeCommit = f }

// SetBeforeTxCommit runs f before the COMMIT of each transaction that
// inTx runs (a migration's record on MySQL, a rotation, ...).
func SetBeforeTxCommit(s *Store, f func()) { s.beforeTxCommit = f }

// Queued returns the number of reports waiting for a writer.
func Queued(s *Store) int { return len(s.batch.queue) }

// GetQuery is the statement GetReport runs (its arguments: id, user).
func GetQuery(s *Store) string { return s.getQuery() }

// ListQuery is the statement ListReports of s runs for f, and its arguments.
func ListQuery(s *Store, f ports.ReportFilter) (string, []any) { return s.ListStatement(f) }

// LookupPool is the pool partners' look-ups run on.
func LookupPool(s *Store) *sql.DB { return s.look.sql }

// LookupContext is ctx bounded as a look-up's statements are.
func LookupContext(s *Store, ctx context.Context) (context.Context, context.CancelFunc) {
	return s.lookupContext(ctx)
}

// Pool is the pool reports are written on.
func Pool(s *Store) *sql.DB { return s.write.sql }

// ThrottlePool is the login throttle's own pool.
func ThrottlePool(t *Throttle) *sql.DB { return t.p.sql }

// RowBatches counts the batches s committed with multi-row statements;
// RowChecks the chunks whose rows it read back (a server that promises
// only unique auto-increment ids; Store.RowMisses counts the misses)
// (commit_rows.go, commit_readback.go).
func RowBatches(s *Store) int64 { return s.rowBatches.Load() }
func RowChecks(s *Store) int64  { return s.rowChecks.Load() }

// RowReturns counts the chunks whose staging ids their INSERT returned
// (MariaDB's RETURNING, commit_returning.go).
func RowReturns(s *Store) int64 { return s.rowReturns.Load() }

// ReturningServer says whether a server of version answers INSERT ...
// RETURNING.
func ReturningServer(version string) bool { return returningServer(version) }

// SetRowStep makes s compute a multi-row INSERT's ids a step of k apart
// whatever the server's auto_increment_increment, and read them back as
// under lock mode 2, its INSERTs returning nothing: with a wrong k every
// read-back must miss. Set it before the store is used.
func SetRowStep(s *Store, k int64) {
	s.rowStep = k
	s.returning.Store(returnsNo)
}

// SetReturnedBackwards makes s check each INSERT's returned rows against
// its reports last first: every chunk of more than one row must miss.
// Set it before the store is used.
func SetReturnedBackwards(s *Store) { s.returnedBackwards = true }

// CommitPool is the pool the group commit's batches run on (the write
// pool on SQLite).
func CommitPool(s *Store) *sql.DB { return s.commit.sql }

// Prepared returns how many statements the write pool's and the commit
// pool's caches hold (one *sql.Stmt each, prepared on every connection
// that runs it).
func Prepared(s *Store) (write, commit int) {
	count := func(c *stmtCache) int {
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.m)
	}
	return count(&s.write.stmts), count(&s.commit.stmts)
}

// CommitIsolation is the isolation level a transaction on the commit pool
// runs at, as MariaDB names it (READ-COMMITTED, REPEATABLE-READ).
func CommitIsolation(ctx context.Context, s *Store) (string, error) {
	tx, err := s.commit.sql.BeginTx(ctx, nil)
	if err != nil {
		return "", err
	}
	defer func() { _ = tx.Rollback() }()
	var level string
	err = tx.QueryRowContext(ctx, "SELECT VARIABLE_VALUE FROM information_schema.SESSION_VARIABLES WHERE VARIABLE_NAME = 'TX_ISOLATION'").Scan(&level)
	return level, err
}

// CountsNowait says whether s's batches read the endpoint counts NOWAIT
// (listeners.go; known after its first batch).
func CountsNowait(s *Store) bool {
	l := s.countsLock.Load()
	return l != nil && strings.HasSuffix(*l, "NOWAIT")
}

// CountsLock is the counts' locking clause on a server of version.
func CountsLock(version string) string { return countsLock(version) }

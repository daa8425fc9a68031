package gormstore

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
	"github.com/ncruces/go-sqlite3"
)

// MySQL's answers that say a transaction was rolled back and may simply
// run again.
const (
	// erDeadlock (SQLSTATE 40001): InnoDB chose the transaction as a
	// deadlock victim, or Galera refused it at certification (another
	// node committed a write to the same key first). At COMMIT too: the
	// server answered, so nothing of it was applied.
	erDeadlock = 1213
	// erLockWait: a statement waited for another transaction's row lock
	// longer than innodb_lock_wait_timeout (store.lock_wait_timeout).
	erLockWait = 1205
)

// isConflict says whether err means the transaction lost to another one
// and was rolled back whole: a deadlock or a certification failure
// (1213), or SQLite finding the database locked by another process
// (SQLITE_BUSY and its extended codes, matched by code, not by text).
func isConflict(err error) bool {
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) {
		return me.Number == erDeadlock
	}
	return errors.Is(err, sqlite3.BUSY)
}

// isLockWait says whether err is a lock wait that timed out: the
// statement's request waited on a row another transaction holds (the same
// key, still being committed elsewhere).
func isLockWait(err error) bool {
	var me *mysqldrv.MySQLError
	return errors.As(err, &me) && me.Number == erLockWait
}

// retryPause is the first pause before a whole batch runs again after a
// conflict; each retry doubles it, and the pause taken is a random part
// of it, so the transactions that conflicted do not meet again in step.
const retryPause = 5 * time.Millisecond

// pause waits a jittered while before retry n+1 and says whether ctx
// still allows it.
func pause(ctx context.Context, n int) bool {
	t := time.NewTimer(rand.N(retryPause << n))
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-ctx.Done():
		return false
	}
}

// Conflicts counts the batches the store ran again, or split into single
// reports, after a deadlock or a certification failure (1213): on a
// Galera cluster, the writes another node committed first.
func (s *Store) Conflicts() int64 { return s.conflicts.Load() }

// isRetryable says whether a statement that failed with err may simply
// run again: it lost a conflict, or waited too long for a lock.
func isRetryable(err error) bool { return isConflict(err) || isLockWait(err) }

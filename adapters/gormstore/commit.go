package gormstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"strings"
	"sync"

	mysqldrv "github.com/go-sql-driver/mysql"
	"gorm.io/gorm"
)

// commitError is a failed COMMIT: the batch may or may not have landed.
type commitError struct{ err error }

func (e *commitError) Error() string { return "commit batch: " + e.err.Error() }
func (e *commitError) Unwrap() error { return e.err }

// stmtCache prepares statements on a pool once, lazily (the tables may
// not exist before Migrate). database/sql prepares each again on every
// connection it runs on, once. GORM's own statement cache is not used: it
// starts a goroutine that never ends.
type stmtCache struct {
	mu sync.Mutex
	db *sql.DB
	m  map[string]*sql.Stmt
}

func (c *stmtCache) get(ctx context.Context, query string) (*sql.Stmt, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st, ok := c.m[query]; ok {
		return st, nil
	}
	st, err := c.db.PrepareContext(ctx, query)
	if err != nil {
		return nil, fmt.Errorf("prepare: %w", err)
	}
	if c.m == nil {
		c.m = map[string]*sql.Stmt{}
	}
	c.m[query] = st
	return st, nil
}

func (c *stmtCache) close() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, st := range c.m {
		_ = st.Close()
	}
	c.m = nil
}

// batchTx runs the group commit's prepared statements in one transaction.
type batchTx struct {
	tx                                 *sql.Tx
	staging, key, undo, reserve, event *sql.Stmt
	args                               []any    // the staging row's, reused report after report
	quiet                              []string // the batch's partners without endpoints (quietPartners)
}

func (b *batchTx) exec(ctx context.Context, st *sql.Stmt, args ...any) (sql.Result, error) {
	return st.ExecContext(ctx, args...)
}

// commitBatch inserts each request's staging row, record and file
// reservation in one transaction and commits once: on MySQL first in
// multi-row statements (commitRows), otherwise, or when those cannot
// settle the batch, a statement per report. A request whose key is
// taken has its staging row removed again and is reported conflicted.
// When a request's statement fails, it returns that request's index and
// the error, having rolled back; a failed commit is a *commitError, with the
// per-request results as they were before it, and index -1.
func (s *Store) commitBatch(ctx context.Context, reqs []*request) ([]result, int, error) {
	if s.driver == MySQL && len(reqs) > 1 && s.clock.Now().UnixNano() >= s.rowsPausedUntil.Load() {
		out, err := s.commitRows(ctx, reqs)
		if !errors.Is(err, errPerReport) {
			return out, -1, err
		}
	}
	b := &batchTx{args: make([]any, 0, 9+len(s.columns))}
	var prep [5]*sql.Stmt
	// Prepared once per connection (database/sql keeps them), then one
	// round trip an execution in the binary protocol: MySQL parses the
	// 100-column INSERT once, not per report, and nothing is interpolated.
	for i, q := range []string{s.sql.staging, s.sql.key, s.sql.undo, s.sql.reserve, s.sql.event} {
		var err error
		if prep[i], err = s.commit.stmts.get(ctx, q); err != nil {
			return nil, -1, fmt.Errorf("batch statements: %w", err)
		}
	}
	// On MySQL at read committed: the commit pool's sessions (openMySQL).
	tx, quiet, err := s.beginBatch(ctx, s.quietCheck(ctx, reqs))
	if err != nil {
		return nil, -1, fmt.Errorf("begin batch: %w", err)
	}
	b.tx, b.quiet = tx, quiet
	b.staging, b.key, b.undo, b.reserve, b.event = tx.StmtContext(ctx, prep[0]), tx.StmtContext(ctx, prep[1]),
		tx.StmtContext(ctx, prep[2]), tx.StmtContext(ctx, prep[3]), tx.StmtContext(ctx, prep[4])
	out := make([]result, len(reqs))
	for i, q := range reqs {
		if out[i], err = s.insertOne(ctx, b, q); err != nil {
			_ = tx.Rollback()
			return nil, i, err
		}
	}
	if i, err := s.insertEvents(ctx, b, reqs, out); err != nil {
		_ = tx.Rollback()
		return nil, i, err
	}
	if s.beforeCommit != nil {
		s.beforeCommit()
	}
	if err := tx.Commit(); err != nil {
		return out, -1, &commitError{err}
	}
	return out, -1, nil
}

// insertOne inserts q's staging row, its record and, when it names a file,
// the reservation of the file's name; commitBatch then inserts the
// report.received event of each one stored (the outbox: the event
// commits with the row or not at all); a taken key undoes the row and
// makes no event. A tombstone under the name (the
// sweep removed the file) refuses the reservation: the request fails like
// a refused row, and nothing of it is stored.
func (s *Store) insertOne(ctx context.Context, b *batchTx, q *request) (result, error) {
	b.args = appendStagingArgs(b.args[:0], s.columns, q.r)
	res, err := b.exec(ctx, b.staging, b.args...)
	if err != nil {
		return result{}, fmt.Errorf("insert staging row: %w", err)
	}
	id, err := res.LastInsertId()
	if err != nil {
		return result{}, fmt.Errorf("read staging id: %w", err)
	}
	rec := q.rec
	rec.FileName = q.r.FileName
	if res, err = b.exec(ctx, b.key, keyArgs(rec, id)...); err != nil {
		return result{}, fmt.Errorf("insert idempotency record: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return result{}, fmt.Errorf("insert idempotency record: %w", err)
	}
	if n > 0 {
		if q.r.FileName != "" {
			if _, err := b.exec(ctx, b.reserve, q.r.FileName, id, q.r.ReceivedAt.UTC()); err != nil {
				return result{}, fmt.Errorf("reserve file %s: %w", q.r.FileName, err)
			}
		}
		return result{kind: stored, id: id}, nil
	}
	if _, err := b.exec(ctx, b.undo, id); err != nil {
		return result{}, fmt.Errorf("remove the staging row of a taken key: %w", err)
	}
	return result{kind: conflicted}, nil
}

// rowError says whether err is the database refusing one statement while
// the connection stays sound, so the batch can run again without it.
func (s *Store) rowError(err error) bool {
	switch {
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded),
		errors.Is(err, driver.ErrBadConn), errors.Is(err, sql.ErrConnDone), errors.Is(err, sql.ErrTxDone),
		isConflict(err), isLockWait(err):
		return false
	case s.driver == MySQL:
		var me *mysqldrv.MySQLError
		return errors.As(err, &me)
	}
	return true
}

func isDuplicate(err error) bool {
	if errors.Is(err, gorm.ErrDuplicatedKey) {
		return true
	}
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) {
		return me.Number == 1062
	}
	return strings.Contains(err.Error(), "UNIQUE constraint failed") || strings.Contains(err.Error(), "duplicated key")
}

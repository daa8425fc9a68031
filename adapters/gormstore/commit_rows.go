package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// On MySQL a batch's rows go in a few multi-row statements (commitRows)
// instead of three a report (insertOne): each statement is a round trip,
// and the round trips, not the rows, were most of the service's and the
// server's work per report. The per-report path stays for SQLite, for a
// batch of one, and for every batch the multi-row one cannot settle.

// errPerReport says a batch must run again a statement per report: a
// row was refused (only that path can tell whose), a key was taken, a
// statement's rows did not get the ids computed for them (readBack) or
// did not come back as its own (insertReturning), or the server has no
// RETURNING.
var errPerReport = errors.New("the batch needs a statement per report")

// rowChunks are the sizes a batch is cut into, largest first (chunkSize):
// every size up to 16, then 24, 32, 48 and 64, so a batch of up to 64
// (store.max_batch's default) goes in at most two chunks
// (TestChunksOfABatch). A chunk costs three to five round trips (staging
// rows, their read-back where ids are computed under lock mode 2,
// records, file reservations, events): powers of two alone cut a batch
// of 15 into 8, 4, 2 and 1. A connection prepares a statement per size
// and kind that it runs, and each takes the server's memory: these 19
// sizes (file reservations: one per number of files in a chunk, up to
// 64; with RETURNING a one-row staging INSERT of its own), not one for
// every batch size, on the commit pool's few connections (openMySQL;
// performance.md, "Two statements a batch").
var rowChunks = []int{64, 48, 32, 24, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2}

// chunkSize is the size of the next chunk of a batch with n rows left:
// the largest of rowChunks that fits, or 1.
func chunkSize(n int) int {
	for _, size := range rowChunks {
		if n >= size {
			return size
		}
	}
	return 1
}

// rowsPause is how long batches go a statement per report after a
// read-back found an id holding another row, or after the server
// refused to prepare a multi-row statement (rowsPausedUntil).
const rowsPause = time.Minute

// commitRows inserts reqs in one transaction with multi-row statements
// and commits once. errPerReport (nothing stored, rolled back) sends the
// batch to the per-report path; a failed COMMIT is a *commitError, as in
// commitBatch.
func (s *Store) commitRows(ctx context.Context, reqs []*request) ([]result, error) {
	// Read committed: the commit pool's sessions (openMySQL).
	tx, quiet, err := s.beginBatch(ctx, s.quietCheck(ctx, reqs))
	if err != nil {
		return nil, fmt.Errorf("begin batch: %w", err)
	}
	out, err := s.insertRows(ctx, tx, reqs, quiet)
	if err != nil {
		_ = tx.Rollback()
		if tooManyStatements(err) {
			s.refused()
		}
		if errors.Is(err, errPerReport) || (ctx.Err() == nil && (s.rowError(err) || isLockWait(err))) {
			return nil, errPerReport
		}
		return nil, err
	}
	if s.beforeCommit != nil {
		s.beforeCommit()
	}
	if err := tx.Commit(); err != nil {
		return out, &commitError{err}
	}
	s.rowBatches.Add(1)
	return out, nil
}

// insertRows runs reqs' statements in tx, chunk by chunk (rowChunks):
// the staging rows, then their records, which must all be new; then the
// file reservations and the events. Each chunk's staging ids come, on a
// server that answers INSERT ... RETURNING (MariaDB 10.5 and later:
// returns), with the INSERT itself, in the order of its rows
// (insertReturning). Elsewhere they are computed: the statement's first
// id and the ones after it, a step of auto_increment_increment apart.
// MySQL promises those ids under innodb_autoinc_lock_mode 0 or 1 (asked
// in the transaction, so a server restarted with another mode is seen).
// Under 2 (MySQL 8's default) it promises only unique ids, so each
// chunk's rows are read back by those ids first (readBack) and the batch
// goes a statement per report unless every id holds its own row.
func (s *Store) insertRows(ctx context.Context, tx *sql.Tx, reqs []*request, quiet []string) ([]result, error) {
	returning, err := s.returns(ctx, tx)
	if err != nil {
		return nil, err
	}
	var step int64
	verify := false
	if !returning {
		var mode int64
		if err := tx.QueryRowContext(ctx, "SELECT @@innodb_autoinc_lock_mode, @@auto_increment_increment").Scan(&mode, &step); err != nil {
			return nil, fmt.Errorf("read the auto-increment mode: %w", err)
		}
		if s.rowStep != 0 {
			step, mode = s.rowStep, 2
		}
		if step < 1 {
			return nil, fmt.Errorf("auto_increment_increment %d: %w", step, errPerReport)
		}
		verify = mode > 1
		if verify && !distinctTags(reqs) {
			return nil, fmt.Errorf("two reports alike in a batch to read back: %w", errPerReport)
		}
	}
	all := reqs
	out := make([]result, 0, len(reqs))
	for len(reqs) > 0 {
		n := chunkSize(len(reqs))
		chunk := reqs[:n]
		reqs = reqs[n:]
		ids, err := s.insertChunk(ctx, tx, chunk, quiet, returning, step, verify)
		if err != nil {
			return nil, err
		}
		for _, id := range ids {
			out = append(out, result{kind: stored, id: id})
		}
	}
	if err := s.insertRowEvents(ctx, tx, all, out, quiet); err != nil {
		return nil, err
	}
	return out, nil
}

// insertChunk inserts chunk's rows and returns their staging ids:
// returned by the INSERT (returning), or computed a step apart and read
// back first when verify is set.
func (s *Store) insertChunk(ctx context.Context, tx *sql.Tx, chunk []*request, quiet []string, returning bool, step int64, verify bool) ([]int64, error) {
	n := len(chunk)
	args := make([]any, 0, n*(9+len(s.columns)))
	for _, q := range chunk {
		args = appendStagingArgs(args, s.columns, q.r)
	}
	var ids []int64
	var err error
	if returning {
		ids, err = s.insertReturning(ctx, tx, chunk, args)
	} else {
		ids, err = s.insertComputed(ctx, tx, chunk, args, step, verify)
	}
	if err != nil {
		return nil, err
	}
	args = args[:0]
	for i, q := range chunk {
		rec := q.rec
		rec.FileName = q.r.FileName
		args = append(args, keyArgs(rec, ids[i])...)
	}
	res, err := s.execRows(ctx, tx, s.sql.key, n, args)
	if err != nil {
		return nil, fmt.Errorf("insert idempotency records: %w", err)
	}
	if k, err := res.RowsAffected(); err != nil || k != int64(n) {
		// A key is taken (0 rows for it): the per-report path tells whose.
		return nil, fmt.Errorf("insert idempotency records: %d of %d (%v): %w", k, n, err, errPerReport)
	}
	args = args[:0]
	files := 0
	for i, q := range chunk {
		if q.r.FileName != "" {
			args = append(args, q.r.FileName, ids[i], q.r.ReceivedAt.UTC())
			files++
		}
	}
	if files > 0 {
		if _, err := s.execRows(ctx, tx, s.sql.reserve, files, args); err != nil {
			return nil, fmt.Errorf("reserve files: %w", err)
		}
	}
	return ids, nil
}

// insertComputed inserts chunk's staging rows (args) and computes their
// ids from the statement's first, step apart; with verify it reads them
// back.
func (s *Store) insertComputed(ctx context.Context, tx *sql.Tx, chunk []*request, args []any, step int64, verify bool) ([]int64, error) {
	n := len(chunk)
	res, err := s.execRows(ctx, tx, s.sql.staging, n, args)
	if err != nil {
		return nil, fmt.Errorf("insert staging rows: %w", err)
	}
	first, err := res.LastInsertId()
	if err != nil {
		return nil, fmt.Errorf("read staging ids: %w", err)
	}
	if k, err := res.RowsAffected(); err != nil || k != int64(n) {
		return nil, fmt.Errorf("insert staging rows: %d of %d (%v): %w", k, n, err, errPerReport)
	}
	ids := make([]int64, n)
	for i := range chunk {
		ids[i] = first + int64(i)*step
	}
	if verify && n > 1 { // one row's id is LastInsertId itself
		if err := s.readBack(ctx, tx, chunk, ids); err != nil {
			return nil, err
		}
	}
	return ids, nil
}

// execRows runs single, a one-row INSERT, as an INSERT of n rows, with
// the prepared statement of that size.
func (s *Store) execRows(ctx context.Context, tx *sql.Tx, single string, n int, args []any) (sql.Result, error) {
	st, err := s.commit.stmts.get(ctx, multiRow(single, n))
	if err != nil {
		return nil, err
	}
	return tx.StmtContext(ctx, st).ExecContext(ctx, args...)
}

// multiRow turns a one-row INSERT ... VALUES (...) [tail] into the same
// statement with n rows: the one parenthesised tuple after VALUES,
// repeated.
func multiRow(single string, n int) string {
	if n == 1 {
		return single
	}
	at := strings.Index(single, " VALUES (")
	if at < 0 {
		panic("gormstore: not a one-row INSERT: " + single)
	}
	head := single[:at+len(" VALUES ")]
	rest := single[len(head):]
	end := strings.Index(rest, ")") + 1
	tuple, tail := rest[:end], rest[end:]
	var b strings.Builder
	b.Grow(len(head) + n*(len(tuple)+2) + len(tail))
	b.WriteString(head)
	for i := range n {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(tuple)
	}
	b.WriteString(tail)
	return b.String()
}

// erTooManyStatements is the server's answer to a PREPARE past
// max_prepared_stmt_count (1461, ER_MAX_PREPARED_STMT_COUNT_REACHED).
const erTooManyStatements = 1461

// tooManyStatements says whether err is the server refusing to prepare
// another statement: it holds max_prepared_stmt_count of them, every
// client's together.
func tooManyStatements(err error) bool {
	var me *mysqldrv.MySQLError
	return errors.As(err, &me) && me.Number == erTooManyStatements
}

// RowRefusals returns how many multi-row statements the server refused
// to prepare (max_prepared_stmt_count): each sent its batch a statement
// per report, whose statements each connection holds already, and
// paused the multi-row path for rowsPause, so later batches do not each
// pay a refused PREPARE and a rollback.
func (s *Store) RowRefusals() int64 { return s.rowRefusals.Load() }

// refused counts a refused multi-row PREPARE and pauses the multi-row
// path.
func (s *Store) refused() {
	s.rowRefusals.Add(1)
	s.pauseRows()
}

// pauseRows sends the batches of the next rowsPause a statement per
// report (rowsPausedUntil).
func (s *Store) pauseRows() {
	s.rowsPausedUntil.Store(s.clock.Now().Add(rowsPause).UnixNano())
}

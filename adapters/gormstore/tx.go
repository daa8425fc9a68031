package gormstore

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
)

// maxTxRetries bounds the runs again of a transaction that lost a
// deadlock or a certification (1213).
const maxTxRetries = 6

// inTx runs fn in one write transaction and commits it. When the database
// rolled the transaction back for a conflict (isConflict: an InnoDB
// deadlock, or on a Galera cluster a certification failure at any
// statement or at COMMIT; SQLite busy), it runs it all again after a
// jittered pause, a bounded number of times: nothing of the lost run was
// applied. fn must reach the database only through tx, and may run more
// than once: what it sets outside, it sets on every run, from the start.
func (s *Store) inTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	for tries := 0; ; tries++ {
		err := s.tryTx(ctx, fn)
		if err == nil || !isConflict(err) || tries >= maxTxRetries || !pause(ctx, tries) {
			return err
		}
		s.conflicts.Add(1)
	}
}

func (s *Store) tryTx(ctx context.Context, fn func(tx *sql.Tx) error) error {
	var opts *sql.TxOptions
	if s.driver == MySQL {
		// Read committed: each statement reads what is committed when it
		// runs, and InnoDB takes no gap locks that make writers wait.
		opts = &sql.TxOptions{Isolation: sql.LevelReadCommitted}
	}
	tx, err := s.write.sql.BeginTx(ctx, opts)
	if err != nil {
		return fmt.Errorf("begin: %w", err)
	}
	if err := fn(tx); err != nil {
		_ = tx.Rollback()
		return err
	}
	if s.beforeTxCommit != nil {
		s.beforeTxCommit()
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("commit: %w", err)
	}
	return nil
}

// execer is what both a pool and a transaction run statements with.
type execer interface {
	ExecContext(ctx context.Context, query string, args ...any) (sql.Result, error)
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// execTx runs one write statement as its own transaction through inTx and
// returns how many rows it changed. On a Galera cluster a replica's write
// to a row that another node's replica writes at the same moment may lose
// certification (1213) even as a single statement; run again, it finds
// what the other wrote. Only for statements whose run again is right.
func (s *Store) execTx(ctx context.Context, query string, args ...any) (int64, error) {
	var n int64
	err := s.inTx(ctx, func(tx *sql.Tx) error {
		var err error
		n, err = affected(ctx, tx, query, args...)
		return err
	})
	return n, err
}

// stringArgs returns names as statement arguments.
func stringArgs(names []string) []any {
	out := make([]any, len(names))
	for i, n := range names {
		out[i] = n
	}
	return out
}

// affected runs a statement and returns how many rows it changed.
func affected(ctx context.Context, db execer, query string, args ...any) (int64, error) {
	res, err := db.ExecContext(ctx, query, args...)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// inList is the placeholders of an IN list of n values: "(?, ?, ?)".
func inList(n int) string { return "(" + placeholders(n) + ")" }

// int64Args returns ids as statement arguments.
func int64Args(ids []int64) []any {
	out := make([]any, len(ids))
	for i, id := range ids {
		out[i] = id
	}
	return out
}

// qualified prefixes each name of a comma list with table's alias: "s."
// and "id, received_at" make "s.id, s.received_at".
func qualified(alias, names string) string {
	parts := strings.Split(names, ", ")
	for i, p := range parts {
		parts[i] = alias + "." + p
	}
	return strings.Join(parts, ", ")
}

package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"
	"strings"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// What the store knows of the server's INSERT ... RETURNING
// (Store.returning).
const (
	returnsUnknown int32 = iota
	returnsYes
	returnsNo
)

// returningTags is what a staging INSERT returns of each of its rows, in
// the order of its VALUES (MariaDB's sql_insert.cc sends each row as it
// writes it): the id, and what tells the row from another.
const returningTags = " RETURNING " + tagColumns

// erParse is the server's answer to a statement it cannot parse (1064,
// ER_PARSE_ERROR): a server without RETURNING.
const erParse = 1064

// returns says whether this batch's staging INSERTs return their ids:
// until a batch has learned it, a batch asks the server's version, in
// its transaction.
func (s *Store) returns(ctx context.Context, tx *sql.Tx) (bool, error) {
	switch s.returning.Load() {
	case returnsYes:
		return true, nil
	case returnsNo:
		return false, nil
	}
	var version string
	if err := tx.QueryRowContext(ctx, "SELECT VERSION()").Scan(&version); err != nil {
		return false, fmt.Errorf("read the server's version: %w", err)
	}
	learned := returnsNo
	if returningServer(version) {
		learned = returnsYes
	}
	// Only over unknown: a 1064 that another batch just met stands.
	s.returning.CompareAndSwap(returnsUnknown, learned)
	return s.returning.Load() == returnsYes, nil
}

// returningServer says whether a server of version (SELECT VERSION(), or
// a handshake's "5.5.5-" form) answers INSERT ... RETURNING: MariaDB 10.5
// and later; MySQL does not. What a batch learned is kept for the
// store's life: a server upgraded under the same address is asked again
// only after a restart.
func returningServer(version string) bool {
	if !strings.Contains(strings.ToLower(version), "mariadb") {
		return false
	}
	version = strings.TrimPrefix(version, "5.5.5-")
	major, rest, _ := strings.Cut(version, ".")
	minor, _, _ := strings.Cut(rest, ".")
	ma, err1 := strconv.Atoi(major)
	mi, err2 := strconv.Atoi(minor)
	if err1 != nil || err2 != nil {
		return false
	}
	return ma > 10 || (ma == 10 && mi >= 5)
}

// insertReturning inserts chunk's staging rows (args) with one INSERT
// that returns each row's id, in the order of its rows: no auto-increment
// setting is asked and nothing is read back. Each returned row must carry
// its own report's tag; one that does not is counted as a read-back miss
// (the batch goes a statement per report and pauses the multi-row path).
// A server that cannot parse the statement is not asked again.
func (s *Store) insertReturning(ctx context.Context, tx *sql.Tx, chunk []*request, args []any) ([]int64, error) {
	n := len(chunk)
	st, err := s.commit.stmts.get(ctx, multiRow(s.sql.staging, n)+returningTags)
	if err != nil {
		return nil, s.notReturning("prepare", err)
	}
	rows, err := tx.StmtContext(ctx, st).QueryContext(ctx, args...)
	if err != nil {
		return nil, s.notReturning("insert", err)
	}
	defer rows.Close()
	ids := make([]int64, 0, n)
	for rows.Next() {
		id, got, err := scanTag(rows)
		if err != nil {
			return nil, fmt.Errorf("insert staging rows: %w", err)
		}
		at := len(ids)
		if s.returnedBackwards {
			at = n - 1 - at
		}
		if len(ids) == n || got != tagOf(chunk[at]) {
			s.missed()
			return nil, fmt.Errorf("insert staging rows: returned row %d (id %d) is not the report's: %w", len(ids), id, errPerReport)
		}
		ids = append(ids, id)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("insert staging rows: %w", err)
	}
	if len(ids) != n {
		s.missed()
		return nil, fmt.Errorf("insert staging rows: %d of %d rows returned: %w", len(ids), n, errPerReport)
	}
	s.rowReturns.Add(1)
	return ids, nil
}

// notReturning wraps a failed INSERT ... RETURNING; a parse error means
// the server has no RETURNING (a MySQL behind the same address), so the
// next batches compute their ids instead. This batch goes a statement
// per report, as after any error of the server's (commitRows).
func (s *Store) notReturning(step string, err error) error {
	var me *mysqldrv.MySQLError
	if errors.As(err, &me) && me.Number == erParse {
		s.returning.Store(returnsNo)
	}
	return fmt.Errorf("%s staging rows: %w", step, err)
}

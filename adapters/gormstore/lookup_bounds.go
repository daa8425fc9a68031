package gormstore

import (
	"context"
	"fmt"
	"strconv"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// lookupContext bounds one look-up's statements at the look-up limit
// (store.lookup_timeout) on the caller's side too: on SQLite the
// driver interrupts the statement when ctx ends (sqlite3_interrupt), so
// the bound and a cancelled request both stop it inside the engine. On
// MySQL the driver only drops its connection when ctx ends, which the
// server may not notice while the statement runs; the session's
// max_statement_time (lookupDSN) stops it there.
func (s *Store) lookupContext(ctx context.Context) (context.Context, context.CancelFunc) {
	return context.WithTimeout(ctx, s.lookupLimit)
}

// lookupDSN is dsn with each session bounding its statements at limit:
// MariaDB's max_statement_time, in seconds (a statement past it fails
// with error 1969 and is gone from the server). It is set once per
// connection, so every look-up statement carries it without a round
// trip of its own.
func lookupDSN(dsn string, limit time.Duration) (string, error) {
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return "", fmt.Errorf("look-up pool: %w", err)
	}
	if cfg.Params == nil {
		cfg.Params = map[string]string{}
	}
	cfg.Params["max_statement_time"] = strconv.FormatFloat(limit.Seconds(), 'f', 3, 64)
	return cfg.FormatDSN(), nil
}

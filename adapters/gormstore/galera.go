package gormstore

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// On a MariaDB Galera node (wsrep_on is ON) every session reads causally;
// readiness asks the node whether it serves (ready.go).

// syncWait is the session variable that makes a Galera node's reads
// causal, and causalReads its bit for reads (SELECT, SHOW, BEGIN): a read
// waits until its node has applied every write the cluster committed
// before it, so a look-up on one node finds a report another replica
// acknowledged on another node a moment ago.
const (
	syncWait    = "wsrep_sync_wait"
	causalReads = 1
)

// checkCausalReads refuses a DSN whose wsrep_sync_wait leaves reads
// uncausal (its bit 1 clear): a replica would answer 404 for a report
// another replica acknowledged. Left out, the store sets it on Galera
// (newConnector).
func checkCausalReads(driverName, dsn string) error {
	if driverName != MySQL {
		return nil
	}
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		return nil // checkTLS has named it
	}
	v, ok := cfg.Params[syncWait]
	if !ok {
		return nil
	}
	if n, err := strconv.Atoi(strings.Trim(v, "'\"")); err != nil || n&causalReads == 0 {
		return &SettingError{"store.dsn", fmt.Sprintf("%s=%s leaves reads on a Galera node uncausal (a report acknowledged on another node may not be found): leave it out (the store sets %d on Galera) or keep bit %d set",
			syncWait, v, causalReads, causalReads)}
	}
	return nil
}

// sessionConnector prepares each new connection of a MySQL pool: on a
// server with wsrep_on ON (one SHOW VARIABLES per connection) it sets
// wsrep_sync_wait to wait, unless wait is -1 (the DSN sets it: the driver
// does on connect); then it runs stmt, if any. A MySQL server without
// wsrep (where the variable does not exist) keeps its own.
type sessionConnector struct {
	driver.Connector
	wait   int
	stmt   string
	galera func() // called when a new connection finds wsrep on (t.onGalera)
}

// newConnector is a pool's connector for cfg (a MySQLDSN's) on t: its
// sessions read causally on a Galera node (causalReads, or the DSN's own
// wsrep_sync_wait), except with t.ownReads, and run t.onConnect.
func newConnector(cfg *mysqldrv.Config, t target) (driver.Connector, error) {
	wait := causalReads
	if t.ownReads {
		wait = 0
		delete(cfg.Params, syncWait) // the driver would set the DSN's first
	} else if _, set := cfg.Params[syncWait]; set {
		wait = -1
	}
	c, err := mysqldrv.NewConnector(cfg)
	if err != nil || (wait < 0 && t.onConnect == "") {
		return c, err
	}
	return sessionConnector{c, wait, t.onConnect, t.onGalera}, nil
}

func (c sessionConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	q, canQuery := conn.(driver.QueryerContext)
	e, canExec := conn.(driver.ExecerContext)
	if !canQuery || !canExec {
		return nil, errors.Join(errors.New("prepare a new connection: the MySQL driver's connection cannot run statements directly"), conn.Close())
	}
	if c.wait >= 0 {
		on, err := wsrepOn(ctx, q)
		if err == nil && on {
			if c.galera != nil {
				c.galera()
			}
			_, err = e.ExecContext(ctx, "SET SESSION "+syncWait+" = "+strconv.Itoa(c.wait), nil)
		}
		if err != nil {
			return nil, errors.Join(fmt.Errorf("set %s on a new connection: %w", syncWait, err), conn.Close())
		}
	}
	if c.stmt != "" {
		if _, err := e.ExecContext(ctx, c.stmt, nil); err != nil {
			return nil, errors.Join(fmt.Errorf("%s on a new connection: %w", c.stmt, err), conn.Close())
		}
	}
	return conn, nil
}

// wsrepOn reports whether conn's server runs Galera replication.
func wsrepOn(ctx context.Context, conn driver.QueryerContext) (bool, error) {
	rows, err := conn.QueryContext(ctx, "SHOW VARIABLES LIKE 'wsrep_on'", nil)
	if err != nil {
		return false, err
	}
	defer rows.Close()
	row := make([]driver.Value, len(rows.Columns()))
	switch err := rows.Next(row); {
	case errors.Is(err, io.EOF):
		return false, nil // no such variable: a server without wsrep
	case err != nil:
		return false, err
	}
	return strings.EqualFold(text(row[len(row)-1]), "ON"), nil
}

func text(v driver.Value) string {
	if b, ok := v.([]byte); ok {
		return string(b)
	}
	return fmt.Sprint(v)
}

// galeraNode reports whether the server of the write pool runs Galera
// replication.
func (s *Store) galeraNode(ctx context.Context) (bool, error) { return galeraOn(ctx, s.write.sql) }

// galeraOn reports whether db's server runs Galera replication (wsrep_on
// ON); a server without the variable does not.
func galeraOn(ctx context.Context, db interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}) (bool, error) {
	var name, value string
	err := db.QueryRowContext(ctx, "SHOW VARIABLES LIKE 'wsrep_on'").Scan(&name, &value)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		return false, nil
	case err != nil:
		return false, err
	}
	return strings.EqualFold(value, "ON"), nil
}

// Writers is the group-commit writers that take batches: BatchWriters,
// or GaleraWriters once the first batch found a Galera node.
func (s *Store) Writers() int { return int(s.batch.limit.Load()) }

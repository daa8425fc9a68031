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
// (causalConnector).
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

// causalConnector sets wsrep_sync_wait on each new connection whose
// server has wsrep_on ON, when the DSN does not set it itself: one
// SHOW VARIABLES per connection, and a SET on Galera. A MySQL server
// without wsrep (where the variable does not exist) is left as it is.
type causalConnector struct{ driver.Connector }

// newConnector is the MySQL pool's connector for cfg (a MySQLDSN's).
func newConnector(cfg *mysqldrv.Config) (driver.Connector, error) {
	c, err := mysqldrv.NewConnector(cfg)
	if err != nil {
		return nil, err
	}
	if _, set := cfg.Params[syncWait]; set {
		return c, nil // the driver sets the DSN's value on connect
	}
	return causalConnector{c}, nil
}

func (c causalConnector) Connect(ctx context.Context) (driver.Conn, error) {
	conn, err := c.Connector.Connect(ctx)
	if err != nil {
		return nil, err
	}
	q, canQuery := conn.(driver.QueryerContext)
	e, canExec := conn.(driver.ExecerContext)
	if !canQuery || !canExec {
		return nil, errors.Join(errors.New("set causal reads: the MySQL driver's connection cannot run statements directly"), conn.Close())
	}
	on, err := wsrepOn(ctx, q)
	if err == nil && on {
		_, err = e.ExecContext(ctx, "SET SESSION "+syncWait+" = "+strconv.Itoa(causalReads), nil)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("set causal reads on a new connection: %w", err), conn.Close())
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

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

// What the store does on a MariaDB Galera node (wsrep_on is ON): every
// session reads causally, and readiness asks the node whether it serves.

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
	on, err := wsrepOn(ctx, conn)
	if err == nil && on {
		_, err = conn.(driver.ExecerContext).ExecContext(ctx, "SET SESSION "+syncWait+" = "+strconv.Itoa(causalReads), nil)
	}
	if err != nil {
		return nil, errors.Join(fmt.Errorf("set causal reads on a new connection: %w", err), conn.Close())
	}
	return conn, nil
}

// wsrepOn reports whether conn's server runs Galera replication.
func wsrepOn(ctx context.Context, conn driver.Conn) (bool, error) {
	rows, err := conn.(driver.QueryerContext).QueryContext(ctx, "SHOW VARIABLES LIKE 'wsrep_on'", nil)
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

// serving checks, on one connection of db, that the server serves the
// store: on a Galera node, that it is Synced in the Primary component
// and ready (a node outside the Primary component answers a ping, and
// refuses every read and write with 1047); on every server, that a read
// of a table succeeds.
func serving(ctx context.Context, db *sql.DB) error {
	conn, err := db.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	var name, on string
	switch err := conn.QueryRowContext(ctx, "SHOW VARIABLES LIKE 'wsrep_on'").Scan(&name, &on); {
	case errors.Is(err, sql.ErrNoRows):
	case err != nil:
		return err
	case strings.EqualFold(on, "ON"):
		if err := galeraServing(ctx, conn); err != nil {
			return err
		}
	}
	var one int
	if err := conn.QueryRowContext(ctx, "SELECT 1 FROM schema_migrations LIMIT 1").Scan(&one); err != nil && !errors.Is(err, sql.ErrNoRows) {
		return fmt.Errorf("read a table: %w", err)
	}
	return nil
}

// galeraServing checks that conn's Galera node is ready (wsrep_ready),
// in the Primary component (wsrep_cluster_status) and Synced
// (wsrep_local_state 4): a joining, donor or isolated node is not.
func galeraServing(ctx context.Context, conn *sql.Conn) error {
	rows, err := conn.QueryContext(ctx, "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_cluster_status', 'wsrep_local_state', 'wsrep_local_state_comment')")
	if err != nil {
		return err
	}
	defer rows.Close()
	status := map[string]string{}
	for rows.Next() {
		var k, v string
		if err := rows.Scan(&k, &v); err != nil {
			return err
		}
		status[strings.ToLower(k)] = v
	}
	if err := rows.Err(); err != nil {
		return err
	}
	if !strings.EqualFold(status["wsrep_ready"], "ON") || status["wsrep_cluster_status"] != "Primary" || status["wsrep_local_state"] != "4" {
		return fmt.Errorf("galera node not serving: wsrep_ready %s, wsrep_cluster_status %s, wsrep_local_state %s (%s); want ON, Primary, 4 (Synced)",
			status["wsrep_ready"], status["wsrep_cluster_status"], status["wsrep_local_state"], status["wsrep_local_state_comment"])
	}
	return nil
}

package gormstore

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
)

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
	switch on, err := galeraOn(ctx, conn); {
	case err != nil:
		return err
	case on:
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

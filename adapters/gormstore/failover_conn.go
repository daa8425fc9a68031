package gormstore

import (
	"context"
	"database/sql/driver"
	"errors"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// nodeConnector is one pool's connector over a nodeSet: it dials the
// node the set has chosen, through that node's own connector (a pool's
// DSN for each node, in the set's order), and marks the connection with
// the set's epoch.
type nodeConnector struct {
	set   *nodeSet
	nodes []driver.Connector
}

func (c nodeConnector) Connect(ctx context.Context) (driver.Conn, error) {
	at := c.set.node()
	conn, err := c.nodes[at.node].Connect(ctx)
	if err != nil {
		c.set.seen(err)
		return nil, err
	}
	return newNodeConn(conn, c.set, at.epoch)
}

func (c nodeConnector) Driver() driver.Driver { return c.nodes[0].Driver() }

// The driver's connection does all of these; nodeConn passes them on.
type fullConn interface {
	driver.Conn
	driver.ConnBeginTx
	driver.ConnPrepareContext
	driver.ExecerContext
	driver.QueryerContext
	driver.Pinger
	driver.SessionResetter
	driver.Validator
	driver.NamedValueChecker
}

// nodeConn is a connection to one node of a nodeSet, made in one epoch.
// Once the set has moved on, the pool refuses it (IsValid, ResetSession)
// the next time it takes or returns it, and closes it. An error that says
// the node may be gone wakes the set's probe.
type nodeConn struct {
	fullConn
	set   *nodeSet
	epoch uint64
}

func newNodeConn(conn driver.Conn, set *nodeSet, epoch uint64) (driver.Conn, error) {
	fc, ok := conn.(fullConn)
	if !ok {
		return nil, errors.Join(errors.New("store: the MySQL driver's connection lacks a method the node list needs"), conn.Close())
	}
	return &nodeConn{fullConn: fc, set: set, epoch: epoch}, nil
}

func (c *nodeConn) current() bool { return c.set.node().epoch == c.epoch }

func (c *nodeConn) IsValid() bool { return c.current() && c.fullConn.IsValid() }

func (c *nodeConn) ResetSession(ctx context.Context) error {
	if !c.current() {
		return driver.ErrBadConn
	}
	return c.fullConn.ResetSession(ctx)
}

func (c *nodeConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	tx, err := c.fullConn.BeginTx(ctx, opts)
	return tx, c.set.seen(err)
}

func (c *nodeConn) PrepareContext(ctx context.Context, query string) (driver.Stmt, error) {
	st, err := c.fullConn.PrepareContext(ctx, query)
	return st, c.set.seen(err)
}

func (c *nodeConn) ExecContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Result, error) {
	r, err := c.fullConn.ExecContext(ctx, query, args)
	return r, c.set.seen(err)
}

func (c *nodeConn) QueryContext(ctx context.Context, query string, args []driver.NamedValue) (driver.Rows, error) {
	r, err := c.fullConn.QueryContext(ctx, query, args)
	return r, c.set.seen(err)
}

func (c *nodeConn) Ping(ctx context.Context) error { return c.set.seen(c.fullConn.Ping(ctx)) }

// Node errors: the server is not ready for clients (a Galera node
// outside the Primary component, or joining) or is shutting down, or
// the connection was killed.
const (
	erUnknownCom = 1047 // WSREP has not yet prepared node for application use
	erShutdown   = 1053
	erConnKilled = 1927
)

// seen wakes the set's probe when err says the node may be gone: the
// connection failed (anything but the server's own answer), or the
// server answered that it does not serve. A statement's own failure (a
// conflict, a duplicate key, a lock wait), a cancelled context and
// ErrSkip do not. It returns err.
func (n *nodeSet) seen(err error) error {
	var me *mysqldrv.MySQLError
	switch {
	case err == nil, errors.Is(err, driver.ErrSkip), errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
	case errors.As(err, &me):
		if me.Number == erUnknownCom || me.Number == erShutdown || me.Number == erConnKilled {
			n.wake()
		}
	default:
		n.wake()
	}
	return err
}

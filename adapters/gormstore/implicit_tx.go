package gormstore

import (
	"context"
	"database/sql/driver"
	"errors"
)

// The commit pool's sessions on MySQL do not autocommit (openMySQL), so a
// batch's transaction begins with its first statement: beginning one
// sends nothing, where START TRANSACTION was a round trip a batch, and
// COMMIT or ROLLBACK ends it. Everything else about the connection is the
// driver's (or nodeConn's, which wraps this one in the same way).

// implicitTxConn is a connection whose session runs with autocommit off.
type implicitTxConn struct{ fullConn }

// newImplicitTxConn turns autocommit off on conn's session and returns
// conn as an implicitTxConn.
func newImplicitTxConn(ctx context.Context, conn driver.Conn) (driver.Conn, error) {
	fc, ok := conn.(fullConn)
	if !ok {
		return nil, errors.Join(errors.New("store: the MySQL driver's connection lacks a method the commit pool needs"), conn.Close())
	}
	if _, err := fc.ExecContext(ctx, "SET SESSION autocommit = 0", nil); err != nil {
		return nil, errors.Join(err, conn.Close())
	}
	return implicitTxConn{fc}, nil
}

// BeginTx begins nothing on the server for a transaction at the session's
// own level (read committed on the commit pool): its first statement
// will. A transaction that asks for another level, or to be read-only,
// gets the driver's START TRANSACTION.
func (c implicitTxConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.Isolation != 0 || opts.ReadOnly {
		return c.fullConn.BeginTx(ctx, opts)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return implicitTx{c.fullConn}, nil
}

// implicitTx ends the session's open transaction. On a connection that
// failed, the driver answers driver.ErrBadConn and the pool closes it
// (the server rolls back what it had).
type implicitTx struct{ c fullConn }

func (t implicitTx) Commit() error {
	_, err := t.c.ExecContext(context.Background(), "COMMIT", nil)
	return err
}

func (t implicitTx) Rollback() error {
	_, err := t.c.ExecContext(context.Background(), "ROLLBACK", nil)
	return err
}

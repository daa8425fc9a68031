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
// driver's (nodeConn wraps this one when store.dsn lists nodes; COMMIT
// and ROLLBACK go past it). Nothing may run on such a connection outside
// a transaction: a statement there would begin one that the next batch
// joined (preparing a statement begins none).

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

// BeginTx begins nothing on the server: the transaction's first
// statement will, at the session's level (read committed on the commit
// pool). A transaction that asks for a level, or to be read-only, is
// refused: SET TRANSACTION cannot run inside the open one, and START
// TRANSACTION would commit it.
func (c implicitTxConn) BeginTx(ctx context.Context, opts driver.TxOptions) (driver.Tx, error) {
	if opts.Isolation != 0 || opts.ReadOnly {
		return nil, errors.New("store: the commit pool's transactions run at its sessions' level, read-write")
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return implicitTx{c.fullConn}, nil
}

// implicitTx ends the session's open transaction. Unless it ended, the
// connection is closed: a COMMIT or ROLLBACK the server refused (a
// Galera node outside the Primary component answers 1047, a KILL QUERY)
// leaves the transaction open on a connection the driver still finds
// sound, and the pool would give it to the next batch, which would join
// it. Closed, the pool drops it and the server rolls back what it had. A
// COMMIT that lost a deadlock or its certification (1213) was rolled back
// whole by the server: that connection stays. Like the driver's own
// transaction, neither takes a context (the transaction's has ended).
type implicitTx struct{ c fullConn }

func (t implicitTx) Commit() error {
	_, err := t.c.ExecContext(context.Background(), "COMMIT", nil)
	if err != nil && !isConflict(err) {
		_ = t.c.Close()
	}
	return err
}

func (t implicitTx) Rollback() error {
	_, err := t.c.ExecContext(context.Background(), "ROLLBACK", nil)
	if err != nil {
		_ = t.c.Close()
	}
	return err
}

package faultproxy

import (
	"errors"
	"net"
	"strings"
	"sync/atomic"
)

// Fate is how the proxy fails a statement that FailNext armed.
type Fate int

// The fates of a statement.
const (
	Pass          Fate = iota // forwarded and answered (no fault)
	LoseAnswer                // forwarded and applied; the connection is cut before the answer reaches the client
	Drop                      // the connection is cut before the server sees the statement
	DropAndRefuse             // as Drop, and the database is taken away (Cut) until Restore
	// TooManyStatements: the proxy answers the statement itself, as a
	// server at max_prepared_stmt_count answers a PREPARE (error 1461),
	// and the server never sees it; the connection stays sound.
	TooManyStatements
	// Unparsed: the proxy answers the statement itself, as a server
	// that cannot parse it answers (error 1064: MySQL given MariaDB's
	// INSERT ... RETURNING), and the server never sees it; the
	// connection stays sound.
	Unparsed
)

// The errors the proxy answers with itself: MySQL's answer to a PREPARE
// past max_prepared_stmt_count, and to a statement it cannot parse.
const (
	erTooManyStatements = 1461
	erParse             = 1064
)

// refusal is the error a Fate answers with, if it answers at all.
func (f Fate) refusal() (code int, msg string, ok bool) {
	switch f {
	case TooManyStatements:
		return erTooManyStatements, "Can't create more than max_prepared_stmt_count statements (current value: 16382)", true
	case Unparsed:
		return erParse, "You have an error in your SQL syntax; check the manual that corresponds to your MySQL server version for the right syntax to use near 'RETURNING id' at line 1", true
	}
	return 0, "", false
}

// refuse answers the command just read on c with MySQL error code and
// msg, in a packet numbered seq.
func (c *conn) refuse(seq byte, code int, msg string) error {
	payload := append([]byte{0xff, byte(code), byte(code >> 8), '#'}, "42000"...)
	payload = append(payload, msg...)
	n := len(payload)
	_, err := c.client.Write(append([]byte{byte(n), byte(n >> 8), byte(n >> 16), seq}, payload...))
	return err
}

// errFailed ends a connection whose statement a Fate failed.
var errFailed = errors.New("faultproxy: statement failed on purpose")

// FailNext fails the next statement whose text starts with prefix (case
// insensitive, e.g. "COMMIT") with fate; Failed counts it once it has.
func (p *MySQL) FailNext(prefix string, fate Fate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, &rule{prefix: strings.ToUpper(prefix), fate: fate})
}

// Failed is the number of statements a Fate failed so far.
func (p *MySQL) Failed() int64 { return p.failed.Load() }

// Cut takes the database away, as a network failure or a server restart
// would: every open connection is closed and new ones are refused until
// Restore.
func (p *MySQL) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		_ = c.Close()
		p.cuts.Add(1)
	}
}

// Restore accepts connections again.
func (p *MySQL) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

// Cuts is the number of connection ends Cut closed (a client's and a
// server's side count apart) and of connections refused while cut.
func (p *MySQL) Cuts() int64 { return p.cuts.Load() }

// conn is one proxied connection.
type conn struct {
	client, server net.Conn
	loseAnswer     atomic.Bool // the next bytes from the server are an answer to lose
}

// suffer applies fate to the statement about to be forwarded; false when
// the statement must not be forwarded (the connection is cut).
func (c *conn) suffer(p *MySQL, fate Fate) bool {
	switch fate {
	case LoseAnswer:
		c.loseAnswer.Store(true)
	case Drop:
		c.cut()
		return false
	case DropAndRefuse:
		p.Cut()
		c.cut()
		return false
	}
	return true
}

func (c *conn) cut() { _ = c.client.Close(); _ = c.server.Close() }

// answer copies the server's bytes to the client; once a statement's
// answer is to be lost, its first bytes cut the connection instead (a
// client sends a statement only once it has read the previous answer, so
// they are that statement's).
func (c *conn) answer() error {
	buf := make([]byte, 64<<10)
	for {
		n, err := c.server.Read(buf)
		if n > 0 {
			if c.loseAnswer.Load() {
				c.cut()
				return errFailed
			}
			if _, werr := c.client.Write(buf[:n]); werr != nil {
				return werr
			}
		}
		if err != nil {
			return err
		}
	}
}

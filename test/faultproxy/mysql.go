// Package faultproxy puts faults between the service and what it depends
// on, for tests: a MySQL protocol proxy that holds statements chosen by
// their text (MySQL), and an HTTP proxy in front of an S3 server that
// delays, fails or cuts requests and counts them (HTTP). Both listen on
// loopback and end with the test. A soak drives them with functions that
// pick a fault per statement or per request.
package faultproxy

import (
	"bufio"
	"io"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// MySQL is a TCP proxy that reads the MySQL client protocol packet by
// packet, so it can hold a statement (a COMMIT, say) for a while before
// the server sees it, as a slow network or a stalled server would, or
// fail it (Fate: its answer lost, or the statement dropped), and take the
// database away (Cut) and bring it back (Restore). What a
// connection sends after a held statement waits behind it. Statements are
// matched by the text of COM_QUERY and COM_STMT_PREPARE; executions of
// prepared statements carry no text and are never held. Plain connections
// only (no TLS, no compression).
type MySQL struct {
	ln     net.Listener
	target string
	closed chan struct{}
	mu     sync.Mutex
	rules  []*rule
	conns  map[net.Conn]struct{}
	down   bool // Cut: connections are refused
	held   atomic.Int64
	failed atomic.Int64 // statements a Fate failed
	cuts   atomic.Int64 // connections Cut closed or refused
	// closeOnce makes Close safe to call twice.
	closeOnce sync.Once
}

// Hold is one armed hold: Seen closes when the statement arrives (and is
// being held), Released once it has been forwarded to the server.
type Hold struct {
	Seen, Released chan struct{}
}

type rule struct {
	prefix string               // upper case
	delay  func() time.Duration // how long to hold a match
	hold   *Hold                // non-nil: this rule holds one statement, then goes
	fate   Fate                 // not Pass: this rule fails one statement so, then goes
}

// StartMySQL starts a proxy to target (host:port) on a loopback port; it
// stops at the end of the test.
func StartMySQL(tb testing.TB, target string) *MySQL {
	tb.Helper()
	p, err := NewMySQL(target)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return p
}

// NewMySQL starts a proxy to target (host:port) on a loopback port, for a
// program that is not a test (the load tool's soak); Close stops it.
func NewMySQL(target string) (*MySQL, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	p := &MySQL{ln: ln, target: target, closed: make(chan struct{}), conns: map[net.Conn]struct{}{}}
	go p.serve()
	return p, nil
}

// Addr is the proxy's host:port.
func (p *MySQL) Addr() string { return p.ln.Addr().String() }

// Route returns dsn (a go-sql-driver DSN) with its address replaced by the
// proxy's.
func (p *MySQL) Route(tb testing.TB, dsn string) string {
	tb.Helper()
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	cfg.Addr = p.Addr()
	return cfg.FormatDSN()
}

// HoldNext holds the next statement whose text starts with prefix (case
// insensitive, e.g. "COMMIT") for d, then forwards it.
func (p *MySQL) HoldNext(prefix string, d time.Duration) *Hold {
	h := &Hold{Seen: make(chan struct{}), Released: make(chan struct{})}
	p.mu.Lock()
	defer p.mu.Unlock()
	p.rules = append(p.rules, &rule{prefix: strings.ToUpper(prefix), delay: func() time.Duration { return d }, hold: h})
	return h
}

// DelayEach holds every statement that starts with prefix for delay()
// (a soak's random COMMIT delays); nil stops it.
func (p *MySQL) DelayEach(prefix string, delay func() time.Duration) {
	prefix = strings.ToUpper(prefix)
	p.mu.Lock()
	defer p.mu.Unlock()
	kept := p.rules[:0]
	for _, r := range p.rules {
		if r.hold != nil || r.prefix != prefix {
			kept = append(kept, r)
		}
	}
	p.rules = kept
	if delay != nil {
		p.rules = append(p.rules, &rule{prefix: prefix, delay: delay})
	}
}

// Held is the number of statements held so far.
func (p *MySQL) Held() int64 { return p.held.Load() }

func (p *MySQL) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		down := p.down
		p.mu.Unlock()
		if down {
			p.cuts.Add(1)
			_ = c.Close()
			continue
		}
		go p.pipe(c)
	}
}

func (p *MySQL) pipe(client net.Conn) {
	server, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = client.Close()
		return
	}
	p.mu.Lock()
	p.conns[client], p.conns[server] = struct{}{}, struct{}{}
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	c := &conn{client: client, server: server}
	go func() { _ = p.forward(c); done <- struct{}{} }()
	go func() { _ = c.answer(); done <- struct{}{} }()
	<-done
	_ = client.Close()
	_ = server.Close()
	p.mu.Lock()
	delete(p.conns, client)
	delete(p.conns, server)
	p.mu.Unlock()
}

// forward copies the client's packets to the server one by one, holding
// or failing those a rule matches. A held packet is sent even if the
// client has gone meanwhile: it was already on its way.
func (p *MySQL) forward(c *conn) error {
	client, server := c.client, c.server
	r := bufio.NewReaderSize(client, 64<<10)
	var pkt []byte
	for {
		hdr := make([]byte, 4)
		if _, err := io.ReadFull(r, hdr); err != nil {
			return err
		}
		n := int(hdr[0]) | int(hdr[1])<<8 | int(hdr[2])<<16
		pkt = append(pkt[:0], hdr...)
		pkt = append(pkt, make([]byte, n)...)
		if _, err := io.ReadFull(r, pkt[4:]); err != nil {
			return err
		}
		released := func() {}
		if hdr[3] == 0 { // a command starts with sequence 0
			var fate Fate
			released, fate = p.holdIfMatched(pkt[4:])
			if code, msg, ok := fate.refusal(); ok {
				if err := c.refuse(hdr[3]+1, code, msg); err != nil {
					return err
				}
				continue
			}
			if !c.suffer(p, fate) {
				return errFailed
			}
		}
		_, err := server.Write(pkt)
		released()
		if err != nil {
			return err
		}
	}
}

const (
	comQuery       = 0x03
	comStmtPrepare = 0x16
)

// holdIfMatched holds a command that a rule matches, and returns what to
// call once it has been forwarded and the Fate the rule gives it.
func (p *MySQL) holdIfMatched(payload []byte) (released func(), fate Fate) {
	released = func() {}
	if len(payload) < 2 || (payload[0] != comQuery && payload[0] != comStmtPrepare) {
		return released, Pass
	}
	text := strings.ToUpper(strings.TrimSpace(string(payload[1:min(len(payload), 256)])))
	p.mu.Lock()
	var match *rule
	for i, r := range p.rules {
		if strings.HasPrefix(text, r.prefix) {
			match = r
			if r.hold != nil || r.fate != Pass {
				p.rules = append(p.rules[:i], p.rules[i+1:]...)
			}
			break
		}
	}
	p.mu.Unlock()
	switch {
	case match == nil:
		return released, Pass
	case match.fate != Pass:
		p.failed.Add(1)
		return released, match.fate
	}
	p.held.Add(1)
	if match.hold != nil {
		close(match.hold.Seen)
		released = func() { close(match.hold.Released) }
	}
	t := time.NewTimer(match.delay())
	defer t.Stop()
	select {
	case <-t.C:
	case <-p.closed:
	}
	return released, Pass
}

// Close stops the proxy: held statements are released at once and every
// connection is closed. It may be called more than once.
func (p *MySQL) Close() {
	p.closeOnce.Do(p.close)
}

func (p *MySQL) close() {
	close(p.closed)
	_ = p.ln.Close()
	p.mu.Lock()
	defer p.mu.Unlock()
	for c := range p.conns {
		_ = c.Close()
	}
}

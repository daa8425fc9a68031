package storetest

import (
	"bufio"
	"io"
	"net"
	"sync"
	"testing"

	mysqldrv "github.com/go-sql-driver/mysql"
)

// StatementLog is a TCP proxy in front of a MySQL server that records,
// for each client connection, the text of every statement sent on it
// (COM_QUERY and COM_STMT_PREPARE), so a test can tell which pool ran
// what and count statements without timing anything.
type StatementLog struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	conns  []*[]string
	open   map[net.Conn]bool
}

// maxLoggedText is how much of a statement's text is kept.
const maxLoggedText = 160

// MustStatementLog starts a recording proxy to the server of dsn and
// returns it with dsn rewritten to go through it.
func MustStatementLog(tb testing.TB, dsn string) (*StatementLog, string) {
	tb.Helper()
	cfg, err := mysqldrv.ParseDSN(dsn)
	if err != nil {
		tb.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	l := &StatementLog{ln: ln, target: cfg.Addr, open: map[net.Conn]bool{}}
	go l.serve()
	tb.Cleanup(l.close)
	cfg.Addr = ln.Addr().String()
	return l, cfg.FormatDSN()
}

// Connections returns, for every connection the proxy carried, the
// statements sent on it, in order.
func (l *StatementLog) Connections() [][]string {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := make([][]string, len(l.conns))
	for i, c := range l.conns {
		out[i] = append([]string(nil), (*c)...)
	}
	return out
}

func (l *StatementLog) close() {
	_ = l.ln.Close()
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.open {
		_ = c.Close()
	}
}

func (l *StatementLog) serve() {
	for {
		c, err := l.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", l.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		stmts := new([]string)
		l.mu.Lock()
		l.conns = append(l.conns, stmts)
		l.open[c], l.open[up] = true, true
		l.mu.Unlock()
		go func() {
			_, _ = io.Copy(c, up)
			_ = c.Close()
		}()
		go func() {
			l.record(c, up, stmts)
			_ = up.Close()
			l.mu.Lock()
			delete(l.open, c)
			delete(l.open, up)
			l.mu.Unlock()
		}()
	}
}

// record forwards the client's packets and logs its commands. A command
// starts a new sequence (sequence id 0); the handshake and
// authentication packets, which do not, are forwarded unread, as are the
// continuations of a packet of the maximum length.
func (l *StatementLog) record(c net.Conn, up net.Conn, stmts *[]string) {
	r := bufio.NewReaderSize(c, 64<<10)
	var head [4]byte
	continued := false
	for {
		if _, err := io.ReadFull(r, head[:]); err != nil {
			return
		}
		n := int(head[0]) | int(head[1])<<8 | int(head[2])<<16
		payload := make([]byte, n)
		if _, err := io.ReadFull(r, payload); err != nil {
			return
		}
		if !continued && head[3] == 0 && n > 0 && (payload[0] == 0x03 || payload[0] == 0x16) {
			text := payload[1:]
			if len(text) > maxLoggedText {
				text = text[:maxLoggedText]
			}
			l.mu.Lock()
			*stmts = append(*stmts, string(text))
			l.mu.Unlock()
		}
		continued = n == 0xffffff
		if _, err := up.Write(append(head[:], payload...)); err != nil {
			return
		}
	}
}

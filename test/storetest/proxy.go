package storetest

import (
	"bytes"
	"net"
	"sync"
	"sync/atomic"
	"testing"
)

// Proxy is a TCP proxy between the service and the database, so a test
// can take the database away (every connection cut, new ones refused) and
// bring it back, as a network failure or a server restart would.
type Proxy struct {
	ln     net.Listener
	target string
	mu     sync.Mutex
	down   bool
	conns  map[net.Conn]bool
	commit CommitFate // what happens to the next COMMIT a client sends
}

// CommitFate is what the proxy does to the next COMMIT (MySQL protocol) a
// client sends, so a test can lose a commit's answer at will.
type CommitFate int

// Commit fates.
const (
	CommitPass          CommitFate = iota // forwarded, answered
	CommitLoseAnswer                      // forwarded and applied; the connection is cut before its answer
	CommitDrop                            // the connection is cut before the server sees it
	CommitDropAndRefuse                   // as CommitDrop, and every connection after it is refused (Cut)
)

// FailNextCommit arms the fate of the next COMMIT.
func (p *Proxy) FailNextCommit(f CommitFate) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.commit = f
}

// commitPacket is COM_QUERY "COMMIT" after the 4-byte packet header, as
// go-sql-driver sends it.
var commitPacket = []byte("\x03COMMIT")

// MustProxy starts a proxy to target (host:port) on a loopback port.
func MustProxy(tb testing.TB, target string) *Proxy {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	p := &Proxy{ln: ln, target: target, conns: map[net.Conn]bool{}}
	go p.serve()
	tb.Cleanup(func() { _ = ln.Close(); p.Cut() })
	return p
}

// Addr is the proxy's address.
func (p *Proxy) Addr() string { return p.ln.Addr().String() }

func (p *Proxy) serve() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		p.mu.Lock()
		if p.down {
			p.mu.Unlock()
			_ = c.Close()
			continue
		}
		p.mu.Unlock()
		go p.pipe(c)
	}
}

func (p *Proxy) pipe(c net.Conn) {
	up, err := net.Dial("tcp", p.target)
	if err != nil {
		_ = c.Close()
		return
	}
	p.mu.Lock()
	p.conns[c], p.conns[up] = true, true
	p.mu.Unlock()
	done := make(chan struct{}, 2)
	var loseAnswer atomic.Bool
	cut := func() { _ = c.Close(); _ = up.Close() }
	go func() { // client to server, watching for COMMIT
		defer func() { done <- struct{}{} }()
		buf := make([]byte, 64<<10)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				if n == 4+len(commitPacket) && bytes.Equal(buf[4:n], commitPacket) {
					switch p.takeCommitFate() {
					case CommitLoseAnswer:
						loseAnswer.Store(true)
					case CommitDrop:
						cut()
						return
					case CommitDropAndRefuse:
						p.Cut()
						return
					}
				}
				if _, werr := up.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	go func() { // server to client; an answer to lose is read, then dropped
		defer func() { done <- struct{}{} }()
		buf := make([]byte, 64<<10)
		for {
			n, err := up.Read(buf)
			if n > 0 {
				if loseAnswer.Load() {
					cut()
					return
				}
				if _, werr := c.Write(buf[:n]); werr != nil {
					return
				}
			}
			if err != nil {
				return
			}
		}
	}()
	<-done
	_ = c.Close()
	_ = up.Close()
	p.mu.Lock()
	delete(p.conns, c)
	delete(p.conns, up)
	p.mu.Unlock()
}

func (p *Proxy) takeCommitFate() CommitFate {
	p.mu.Lock()
	defer p.mu.Unlock()
	f := p.commit
	p.commit = CommitPass
	return f
}

// Cut closes every open connection and refuses new ones.
func (p *Proxy) Cut() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = true
	for c := range p.conns {
		_ = c.Close()
	}
}

// Restore accepts connections again.
func (p *Proxy) Restore() {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.down = false
}

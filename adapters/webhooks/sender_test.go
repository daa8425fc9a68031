package webhooks

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// receiver is a real HTTP server on a loopback address that counts the
// connections it accepted and the requests it served.
type receiver struct {
	*httptest.Server
	conns atomic.Int32
	reqs  atomic.Int32
}

// newReceiver starts h on addr ("127.0.0.1:0" when ""), with TLS when tlsOn.
func newReceiver(t *testing.T, addr string, tlsOn bool, h http.HandlerFunc) *receiver {
	t.Helper()
	r := &receiver{}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.reqs.Add(1)
		h(w, req)
	}))
	if addr != "" {
		ln, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("cannot listen on %s: %v", addr, err)
		}
		srv.Listener.Close()
		srv.Listener = ln
	}
	srv.Config.ErrorLog = log.New(io.Discard, "", 0) // the refused handshakes are the point
	srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		if s == http.StateNew {
			r.conns.Add(1)
		}
	}
	if tlsOn {
		srv.StartTLS()
	} else {
		srv.Start()
	}
	r.Server = srv
	t.Cleanup(srv.Close)
	return r
}

// port is the receiver's port.
func (r *receiver) port() string {
	_, p, _ := net.SplitHostPort(r.Listener.Addr().String())
	return p
}

func ok204(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(http.StatusNoContent) }

func newTestSender(t *testing.T, o Options) *Sender {
	t.Helper()
	if o.Timeout == 0 {
		o.Timeout = 5 * time.Second
	}
	if o.MaxConnsPerHost == 0 {
		o.MaxConnsPerHost = 2
	}
	s, err := NewSender(o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

func post(s *Sender, url string) ports.WebhookResult {
	return s.Send(context.Background(), ports.WebhookRequest{EndpointID: "we_x", URL: url, Body: []byte(`{"type":"report.accepted"}`),
		Header: map[string]string{"webhook-id": "evt_1", "webhook-timestamp": "1700000000", "webhook-signature": "v1,abc"}})
}

// TestSenderReachesAnAllowedHost: a receiver on loopback is reached when
// its host (the address, or the name localhost) is allowed insecure, and
// gets the POST with its headers, JSON and the service's User-Agent.
func TestSenderReachesAnAllowedHost(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var got http.Header
	rcv := newReceiver(t, "", false, func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = r.Header.Clone()
		mu.Unlock()
		w.WriteHeader(http.StatusOK)
	})
	for _, host := range []string{"127.0.0.1", "localhost"} {
		s := newTestSender(t, Options{InsecureHosts: []string{host}, UserAgent: "disbursementd/test webhooks"})
		if res := post(s, "http://"+host+":"+rcv.port()+"/hook"); res.StatusCode != 200 || res.Error != "" || res.Duration <= 0 {
			t.Errorf("%s allowed: %+v, want 200 delivered", host, res)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for k, want := range map[string]string{"Webhook-Id": "evt_1", "Webhook-Timestamp": "1700000000", "Webhook-Signature": "v1,abc",
		"Content-Type": "application/json", "User-Agent": "disbursementd/test webhooks"} {
		if got.Get(k) != want {
			t.Errorf("header %s %q, want %q", k, got.Get(k), want)
		}
	}
}

// TestSenderRefusesNonPublicAddresses: with its host not allowed, a
// loopback receiver is refused (refused_address) and never sees a
// connection: by the address 127.0.0.1 or 127.0.0.2, and by the name
// localhost, which only resolves to loopback when dialled.
func TestSenderRefusesNonPublicAddresses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ listen, host string }{
		{"127.0.0.1:0", "127.0.0.1"}, {"127.0.0.1:0", "localhost"}, {"127.0.0.2:0", "127.0.0.2"},
	} {
		rcv := newReceiver(t, c.listen, true, ok204)
		pool := x509.NewCertPool()
		pool.AddCert(rcv.Certificate())
		other := newTestSender(t, Options{InsecureHosts: []string{"partner.example"}, RootCAs: pool})
		for _, url := range []string{"https://" + c.host + ":" + rcv.port() + "/", "http://" + c.host + ":" + rcv.port() + "/"} {
			if res := post(other, url); res.Error != domain.AttemptRefusedAddress || res.StatusCode != 0 {
				t.Errorf("%s not allowed: %+v, want refused_address", url, res)
			}
		}
		// The dialler itself refuses, whatever the URL's check said: the
		// address checked is the one connected to, after DNS.
		conn, err := other.dial(context.Background(), "tcp", net.JoinHostPort(c.host, rcv.port()))
		if err == nil {
			conn.Close()
			t.Errorf("dial %s not allowed: connected", c.host)
		} else if classify(err) != domain.AttemptRefusedAddress {
			t.Errorf("dial %s not allowed: %v, classed %s", c.host, err, classify(err))
		}
		if n := rcv.conns.Load(); n != 0 {
			t.Errorf("%s not allowed: the receiver accepted %d connections", c.host, n)
		}
		allowed := newTestSender(t, Options{InsecureHosts: []string{c.host}, RootCAs: pool})
		conn, err = allowed.dial(context.Background(), "tcp", net.JoinHostPort(c.host, rcv.port()))
		if err != nil {
			t.Errorf("dial %s allowed: %v", c.host, err)
		} else {
			conn.Close()
		}
	}
}

// TestSenderAllowedHostStaysPrivateOrLoopback: a host allowed insecure
// may use private or loopback addresses, not any (the twenty-first
// session's review: the check was off for such hosts, so an allowed name
// rebound to 0.0.0.0, which reaches this host, or to 169.254.169.254,
// the cloud metadata address, was dialled). The dialler refuses them;
// loopback by an allowed name is still reached.
func TestSenderAllowedHostStaysPrivateOrLoopback(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "127.0.0.1:0", false, ok204)
	for _, host := range []string{"0.0.0.0", "169.254.169.254"} {
		s := newTestSender(t, Options{InsecureHosts: []string{host}})
		if res := post(s, "http://"+host+":"+rcv.port()+"/hook"); res.Error != domain.AttemptRefusedAddress || res.StatusCode != 0 {
			t.Errorf("%s allowed: %+v, want refused_address", host, res)
		}
		conn, err := s.dial(context.Background(), "tcp", net.JoinHostPort(host, rcv.port()))
		if err == nil {
			conn.Close()
			t.Errorf("dial %s allowed: connected", host)
		} else if classify(err) != domain.AttemptRefusedAddress {
			t.Errorf("dial %s allowed: %v, classed %s", host, err, classify(err))
		}
	}
	s := newTestSender(t, Options{InsecureHosts: []string{"localhost"}})
	if res := post(s, "http://locAlhost:"+rcv.port()+"/hook"); res.StatusCode != 204 {
		t.Errorf("localhost allowed: %+v, want 204 delivered", res)
	}
	if n := rcv.conns.Load(); n != 1 {
		t.Errorf("the receiver accepted %d connections, want the allowed one's", n)
	}
}

// TestSenderDoesNotFollowRedirects: a 3xx is an attempt that failed
// (http_status with its code); the place it points to never sees a
// request.
func TestSenderDoesNotFollowRedirects(t *testing.T) {
	t.Parallel()
	target := newReceiver(t, "", false, ok204)
	from := newReceiver(t, "", false, func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/elsewhere", http.StatusTemporaryRedirect)
	})
	s := newTestSender(t, Options{InsecureHosts: []string{"127.0.0.1"}})
	if res := post(s, from.URL+"/hook"); res.StatusCode != 307 || res.Error != domain.AttemptHTTPStatus {
		t.Errorf("redirect: %+v, want 307 http_status", res)
	}
	if n := target.reqs.Load(); n != 0 {
		t.Errorf("the redirect's target got %d requests", n)
	}
}

// TestSenderReadsAtMost64KiB: of a receiver that streams an endless
// 200 answer, at most 64 KiB (and the transport's buffer) is read before
// the connection is closed: the receiver's writes fail soon after.
func TestSenderReadsAtMost64KiB(t *testing.T) {
	t.Parallel()
	handlerDone := make(chan int64, 1)
	rcv := newReceiver(t, "", false, func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		chunk := []byte(strings.Repeat("x", 32<<10))
		var n int64
		for n < 1<<30 {
			m, err := w.Write(chunk)
			n += int64(m)
			if err != nil {
				break
			}
		}
		handlerDone <- n
	})
	s := newTestSender(t, Options{InsecureHosts: []string{"127.0.0.1"}, Timeout: 20 * time.Second})
	var read atomic.Int64
	s.transport.DialContext = func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := s.dial(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &countingConn{Conn: c, read: &read}, nil
	}
	start := time.Now()
	res := post(s, rcv.URL)
	if res.StatusCode != 200 || res.Error != "" || time.Since(start) > 10*time.Second {
		t.Errorf("endless answer: %+v after %s, want 200 at once", res, time.Since(start))
	}
	if n := read.Load(); n > MaxAnswerBytes+16<<10 {
		t.Errorf("%d bytes read from the connection, want at most 64 KiB and the headers and a buffer", n)
	}
	select {
	case n := <-handlerDone:
		if n >= 1<<30 {
			t.Errorf("the receiver wrote its whole GiB: the connection was not closed")
		}
	case <-time.After(10 * time.Second):
		t.Error("the receiver was still writing 10 s after the answer: the connection was not closed")
	}
}

type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c *countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// TestSenderTimesOut: a receiver that never answers, or answers only the
// headers and then nothing, ends the attempt at webhooks.timeout: the
// first as a timeout, the second as the 2xx that came.
func TestSenderTimesOut(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	hangs := newReceiver(t, "", false, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body) // then the server sees the client go
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	t.Cleanup(func() { close(release) }) // before the receiver's Close, which waits for it
	s := newTestSender(t, Options{InsecureHosts: []string{"127.0.0.1"}, Timeout: 300 * time.Millisecond})
	start := time.Now()
	res := post(s, hangs.URL)
	// The upper bound is a wait for a hang (the receiver never answers),
	// not a speed.
	if took := time.Since(start); res.Error != domain.AttemptTimeout || res.StatusCode != 0 || took < 300*time.Millisecond || took > 30*time.Second {
		t.Errorf("hanging receiver: %+v after %s, want timeout after 300 ms", res, took)
	}
}

// TestSenderTLS: a TLS receiver whose CA the sender is given is reached
// (TLS 1.2 or later); without its CA, or speaking only TLS 1.1, the
// attempt fails with class tls.
func TestSenderTLS(t *testing.T) {
	t.Parallel()
	rcv := newReceiver(t, "", true, ok204)
	pool := x509.NewCertPool()
	pool.AddCert(rcv.Certificate())
	allowed := []string{"127.0.0.1"}
	if res := post(newTestSender(t, Options{InsecureHosts: allowed, RootCAs: pool}), rcv.URL); res.StatusCode != 204 || res.Error != "" {
		t.Errorf("trusted TLS receiver: %+v, want 204", res)
	}
	if res := post(newTestSender(t, Options{InsecureHosts: allowed}), rcv.URL); res.Error != domain.AttemptTLS {
		t.Errorf("unknown CA: %+v, want tls", res)
	}
	old := httptest.NewUnstartedServer(http.HandlerFunc(ok204))
	old.Config.ErrorLog = log.New(io.Discard, "", 0)
	old.TLS = &tls.Config{MaxVersion: tls.VersionTLS11}
	old.StartTLS()
	t.Cleanup(old.Close)
	pool.AddCert(old.Certificate())
	if res := post(newTestSender(t, Options{InsecureHosts: allowed, RootCAs: pool}), old.URL); res.Error != domain.AttemptTLS {
		t.Errorf("TLS 1.1 receiver: %+v, want tls", res)
	}
}

// TestSenderClassifiesFailures: a 500 is http_status with its code; a
// closed port is connection.
func TestSenderClassifiesFailures(t *testing.T) {
	t.Parallel()
	fails := newReceiver(t, "", false, func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		http.Error(w, "internal detail the log must not keep", http.StatusInternalServerError)
	})
	s := newTestSender(t, Options{InsecureHosts: []string{"127.0.0.1"}})
	if res := post(s, fails.URL); res.StatusCode != 500 || res.Error != domain.AttemptHTTPStatus {
		t.Errorf("500: %+v", res)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	closed := ln.Addr().String()
	ln.Close()
	if res := post(s, "http://"+closed+"/"); res.Error != domain.AttemptConnection || res.StatusCode != 0 {
		t.Errorf("closed port: %+v, want connection", res)
	}
}

// TestSenderBoundsConnectionsPerHost: five POSTs at once to a hanging
// receiver open at most MaxConnsPerHost (2) connections to it; the
// transport reads no proxy from the environment.
func TestSenderBoundsConnectionsPerHost(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	rcv := newReceiver(t, "", false, func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	})
	s := newTestSender(t, Options{InsecureHosts: []string{"127.0.0.1"}, Timeout: 2 * time.Second})
	if s.transport.Proxy != nil {
		t.Error("the transport takes a proxy")
	}
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() { post(s, rcv.URL) })
	}
	deadline := time.Now().Add(time.Second)
	for rcv.reqs.Load() < 2 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	time.Sleep(100 * time.Millisecond)
	if n := rcv.conns.Load(); n != 2 {
		t.Errorf("%d connections to one host, want 2", n)
	}
	close(release)
	wg.Wait()
}

// TestNewSenderRefusesBadOptions: no timeout or no bound of connections
// is refused.
func TestNewSenderRefusesBadOptions(t *testing.T) {
	t.Parallel()
	for _, o := range []Options{{MaxConnsPerHost: 1}, {Timeout: time.Second}} {
		if _, err := NewSender(o); err == nil {
			t.Errorf("%+v accepted", o)
		}
	}
}

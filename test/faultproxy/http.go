package faultproxy

import (
	"context"
	"io"
	"log"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
)

// HTTP is a reverse proxy in front of an S3 server (or any HTTP server)
// that injects faults per request and counts requests by method. SigV4
// signatures survive it: it forwards the Host the client signed.
type HTTP struct {
	srv     *httptest.Server
	rp      *httputil.ReverseProxy
	mu      sync.Mutex
	faults  func(*http.Request) Fault
	counts  map[string]int64 // by method, and by "method object" for report objects
	faulted int64            // requests given a fault
}

// Fault is what the proxy does to one request; the zero Fault forwards it.
type Fault struct {
	Delay       time.Duration // wait before forwarding (the server sees it late)
	AnswerDelay time.Duration // forward at once, hold the server's answer (stored early, acknowledged late)
	Status      int           // answer this status (an S3 error) without forwarding
	Cut         bool          // close the connection without an answer, without forwarding
}

type faultKey struct{}

// StartHTTP starts a proxy to target (a URL) on a loopback port; it stops
// at the end of the test.
func StartHTTP(tb testing.TB, target string) *HTTP {
	tb.Helper()
	p, err := NewHTTP(target)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(p.Close)
	return p
}

// NewHTTP starts a proxy to target (a URL) on a loopback port, for a
// program that is not a test (the load tool's soak); Close stops it.
func NewHTTP(target string) (*HTTP, error) {
	u, err := url.Parse(target)
	if err != nil {
		return nil, err
	}
	p := &HTTP{counts: map[string]int64{}}
	p.rp = httputil.NewSingleHostReverseProxy(u)
	// A client that gives up on a delayed request is a fault the proxy
	// made, not news: each would be a log line.
	p.rp.ErrorLog = log.New(io.Discard, "", 0)
	p.rp.ModifyResponse = func(resp *http.Response) error {
		if f, ok := resp.Request.Context().Value(faultKey{}).(Fault); ok && f.AnswerDelay > 0 {
			time.Sleep(f.AnswerDelay)
		}
		return nil
	}
	p.srv = httptest.NewServer(http.HandlerFunc(p.serve))
	return p, nil
}

// Close stops the proxy once the requests it is serving have ended.
func (p *HTTP) Close() { p.srv.Close() }

// URL is the proxy's base URL, to use as the S3 endpoint.
func (p *HTTP) URL() string { return p.srv.URL }

// SetFaults decides the fault of each request from now on; nil forwards
// everything.
func (p *HTTP) SetFaults(f func(*http.Request) Fault) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.faults = f
}

// Requests is the number of requests of method received, faulted or not.
func (p *HTTP) Requests(method string) int64 { return p.count(method) }

// Objects is the number of requests of method on report objects (a key
// whose name is an upload name, domain.IsUploadName, under any prefix).
func (p *HTTP) Objects(method string) int64 { return p.count(method + " object") }

// Faulted is the number of requests given a fault (not the zero Fault).
func (p *HTTP) Faulted() int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.faulted
}

// Reset sets the counts to zero.
func (p *HTTP) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	clear(p.counts)
	p.faulted = 0
}

func (p *HTTP) count(key string) int64 {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.counts[key]
}

// IsObjectPUT says whether r uploads a report object.
func IsObjectPUT(r *http.Request) bool {
	return r.Method == http.MethodPut && isObject(r)
}

// isObject says whether r names a report object: its last path segment
// is an upload name (domain.IsUploadName), under any prefix.
func isObject(r *http.Request) bool {
	return domain.IsUploadName(r.URL.Path[strings.LastIndexByte(r.URL.Path, '/')+1:])
}

func (p *HTTP) serve(w http.ResponseWriter, r *http.Request) {
	p.mu.Lock()
	p.counts[r.Method]++
	if isObject(r) {
		p.counts[r.Method+" object"]++
	}
	var f Fault
	if p.faults != nil {
		f = p.faults(r)
	}
	if f != (Fault{}) {
		p.faulted++
	}
	p.mu.Unlock()
	switch {
	case f.Cut:
		if conn, _, err := w.(http.Hijacker).Hijack(); err == nil {
			_ = conn.Close()
		}
		return
	case f.Status != 0:
		code := "InternalError"
		if f.Status == http.StatusServiceUnavailable {
			code = "SlowDown"
		}
		w.Header().Set("Content-Type", "application/xml")
		w.WriteHeader(f.Status)
		_, _ = w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>` + code +
			`</Code><Message>fault injected (` + strconv.Itoa(f.Status) + `)</Message></Error>`))
		return
	}
	if f.Delay > 0 {
		t := time.NewTimer(f.Delay)
		select {
		case <-t.C:
		case <-r.Context().Done():
			t.Stop()
			return // the client gave up before the server saw it
		}
	}
	p.rp.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), faultKey{}, f)))
}

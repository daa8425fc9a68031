package testkit

import (
	"bytes"
	"io"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Every exchange the suite has through http.DefaultClient (call, and
// http.Get) is recorded, request and answer with their headers, so that
// the test that started the server can check them against openapi.yaml
// when it ends (watch).
func init() {
	http.DefaultClient.Transport = recordingTransport{next: http.DefaultTransport}
}

// maxRecordedBody bounds what is kept of one body: a report with a large
// file is sent and answered as usual, but its request body is not checked.
const maxRecordedBody = 1 << 20

// recordedExchange is one request and its answer as the suite saw them.
type recordedExchange struct {
	at          time.Time // when the request was sent
	method, url string
	reqHeader   http.Header
	reqBody     *teeBody // nil when the request had no body
	status      int
	header      http.Header
	body        *teeBody
}

var recorded struct {
	mu        sync.Mutex
	exchanges []*recordedExchange
}

type recordingTransport struct{ next http.RoundTripper }

func (t recordingTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	ex := &recordedExchange{at: time.Now(), method: req.Method, url: req.URL.String(), reqHeader: req.Header.Clone()}
	if req.Body != nil && req.Body != http.NoBody {
		// The body is copied as the transport sends it, never read ahead:
		// a test may stream it or stop early.
		ex.reqBody = &teeBody{src: req.Body}
		req = req.Clone(req.Context())
		req.Body = ex.reqBody
	}
	resp, err := t.next.RoundTrip(req)
	if err != nil {
		return resp, err
	}
	ex.status, ex.header = resp.StatusCode, resp.Header.Clone()
	if ex.reqBody != nil && (resp.StatusCode < 200 || resp.StatusCode > 299) {
		// Only requests that succeeded are checked against the document;
		// a refused one's body need not be kept (floods of them would
		// weigh on tests that measure the heap).
		ex.reqBody.drop()
	}
	ex.body = &teeBody{src: resp.Body}
	resp.Body = ex.body
	recorded.mu.Lock()
	recorded.exchanges = append(recorded.exchanges, ex)
	recorded.mu.Unlock()
	return resp, nil
}

// teeBody keeps a copy of what is read through it (up to maxRecordedBody)
// and whether it was read to the end.
type teeBody struct {
	src      io.ReadCloser
	mu       sync.Mutex
	buf      bytes.Buffer
	complete bool
	cut      bool
}

func (b *teeBody) Read(p []byte) (int, error) {
	b.mu.Lock()
	src := b.src
	b.mu.Unlock()
	n, err := src.Read(p)
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.cut || b.buf.Len()+n > maxRecordedBody {
		b.cut = true
	} else {
		b.buf.Write(p[:n])
	}
	if err == io.EOF {
		b.complete = true
	}
	return n, err
}

// Close closes the body and lets go of it: the recording outlives the
// Exchange, the body it copied need not.
func (b *teeBody) Close() error {
	b.mu.Lock()
	src := b.src
	b.src = http.NoBody
	b.mu.Unlock()
	return src.Close()
}

// drop forgets what was kept and keeps nothing more.
func (b *teeBody) drop() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = bytes.Buffer{}
	b.cut = true
}

// bytes returns the whole body, or false when it was not read to the end
// or was too large to keep.
func (b *teeBody) bytes() ([]byte, bool) {
	if b == nil {
		return nil, true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return bytes.Clone(b.buf.Bytes()), b.complete && !b.cut
}

// takeExchanges removes the recorded exchanges with the server at base
// (scheme, host and port) and returns those sent since since. An older
// one was with another listener that had the port before this server (an
// internal listener of another test, whose exchanges no test takes): it
// is dropped, not charged to this server.
func takeExchanges(base string, since time.Time) []*recordedExchange {
	recorded.mu.Lock()
	defer recorded.mu.Unlock()
	var mine []*recordedExchange
	rest := recorded.exchanges[:0]
	for _, ex := range recorded.exchanges {
		switch {
		case !strings.HasPrefix(ex.url, base+"/"):
			rest = append(rest, ex)
		case !ex.at.Before(since):
			mine = append(mine, ex)
		}
	}
	clear(recorded.exchanges[len(rest):])
	recorded.exchanges = rest
	return mine
}

package httpapi

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// debianPython is Debian's python3 with python3-httpx (.ci/run installs
// it); without it the test skips, except under CI=true.
func debianPython(t *testing.T) string {
	t.Helper()
	const py = "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import httpx").Run(); err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s with httpx (python3-httpx) is needed in CI: %v", py, err)
		}
		t.Skipf("%s with httpx (python3-httpx): %v", py, err)
	}
	return py
}

// TestOversizedBodyIsReadByPython: issue 36. Python's urllib and httpx
// write a whole body before they read the answer; a body over the limit
// (32 MiB, declared in Content-Length) reached them as "Broken pipe"
// because the server closed before they had sent it. Now each reads the
// 413 and its problem body on a real listener.
func TestOversizedBodyIsReadByPython(t *testing.T) {
	t.Parallel()
	py := debianPython(t)
	h, _ := newV1Harness(t, Limits{MaxBody: 32 * mib, MaxBytesInFlight: 128 * mib})
	for _, lib := range []string{"urllib", "httpx"} {
		t.Run(lib, func(t *testing.T) {
			out, err := exec.Command(py, "testdata/oversize.py", h.url+"/v1/reports", lib, strconv.Itoa(33*mib)).CombinedOutput()
			if err != nil {
				t.Fatalf("%s sending 33 MiB: %v\n%s", lib, err, out)
			}
			var got struct {
				Status      int            `json:"status"`
				ContentType string         `json:"content_type"`
				Body        map[string]any `json:"body"`
			}
			if err := json.Unmarshal(out, &got); err != nil {
				t.Fatalf("%s: %v\n%s", lib, err, out)
			}
			if got.Status != 413 || got.Body["code"] != "body_too_large" || got.ContentType != "application/problem+json" {
				t.Fatalf("%s read %d %s %v, want 413 application/problem+json body_too_large", lib, got.Status, got.ContentType, got.Body)
			}
		})
	}
}

// countingListener counts the bytes the server reads from its
// connections.
type countingListener struct {
	net.Listener
	read *atomic.Int64
}

func (l countingListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	return countingConn{c, l.read}, err
}

type countingConn struct {
	net.Conn
	read *atomic.Int64
}

func (c countingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.read.Add(int64(n))
	return n, err
}

// serveCounting serves h's server with a 1 MiB body limit and a drain
// of at most drainFor on a listener that counts what it reads.
func serveCounting(t *testing.T, drainFor time.Duration) (url string, read *atomic.Int64) {
	t.Helper()
	h, _ := newV1Harness(t, Limits{MaxBody: mib, MaxBytesInFlight: 16 * mib})
	h.rebuild(t, func(s *Server) { s.drainFor = drainFor })
	read = &atomic.Int64{}
	ts := httptest.NewUnstartedServer(h.srv.Handler())
	ts.Listener = countingListener{ts.Listener, read}
	ts.Start()
	t.Cleanup(ts.Close)
	return ts.URL, read
}

// sendUntilCut writes head and then chunk after chunk every every,
// until a write fails or give passes; it returns the answer read
// meanwhile, and how long after that answer the writes kept going.
func sendUntilCut(t *testing.T, url, head string, chunk []byte, every, give time.Duration) (*http.Response, time.Duration) {
	t.Helper()
	c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	answered := make(chan *http.Response, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			resp = nil
		}
		answered <- resp
	}()
	if _, err := io.WriteString(c, head); err != nil {
		t.Fatal(err)
	}
	var resp *http.Response
	var at time.Time
	for end := time.Now().Add(give); time.Now().Before(end); time.Sleep(every) {
		if resp == nil {
			select {
			case resp = <-answered:
				at = time.Now()
			default:
			}
		}
		if _, err := c.Write(chunk); err != nil {
			if resp == nil {
				resp = <-answered
				at = time.Now()
			}
			return resp, time.Since(at)
		}
	}
	t.Fatalf("still sending after %s", give)
	return nil, 0
}

// TestOversizedBodyDrainIsBounded: the drain after a 413 is bounded in
// bytes and in time. A chunked body that never ends, sent as fast as the
// connection takes it, is cut off once the server has read twice the
// limit (drainedUpTo); a body that declares a length the drain would read
// but sends it slowly (still above the minimum rate) is cut off at
// drainFor. Either client read its 413 first. A body declaring more than
// the drain reads, or one asking Expect: 100-continue, gets the 413 at
// once and is not read (no 100 Continue is sent).
func TestOversizedBodyDrainIsBounded(t *testing.T) {
	t.Parallel()
	const auth = "Authorization: Bearer good\r\nContent-Type: application/json\r\n"
	chunk := []byte(fmt.Sprintf("%x\r\n%s\r\n", 32<<10, bytes.Repeat([]byte("a"), 32<<10)))

	url, read := serveCounting(t, time.Minute)
	resp, _ := sendUntilCut(t, url, "POST /v1/reports HTTP/1.1\r\nHost: x\r\n"+auth+"Transfer-Encoding: chunked\r\n\r\n", chunk, 0, time.Minute)
	if resp == nil || resp.StatusCode != 413 {
		t.Fatalf("endless chunked body: answer %v, want 413 before the cut", resp)
	}
	// net/http reads up to 256 KiB more of a body left unread when the handler returns.
	if got, most := read.Load(), int64(drainedUpTo*mib+256<<10+2*len(chunk)+8<<10); got > most {
		t.Fatalf("endless chunked body: the server read %d bytes, want at most %d", got, most)
	}

	url, read = serveCounting(t, 500*time.Millisecond)
	resp, after := sendUntilCut(t, url, fmt.Sprintf("POST /v1/reports HTTP/1.1\r\nHost: x\r\n%sContent-Length: %d\r\n\r\n", auth, 2*mib-100),
		bytes.Repeat([]byte("a"), 16<<10), 200*time.Millisecond, time.Minute)
	if resp == nil || resp.StatusCode != 413 {
		t.Fatalf("slow declared body: answer %v, want 413 before the cut", resp)
	}
	if after > 10*time.Second || read.Load() > mib/2 {
		t.Fatalf("slow declared body: sent for %s after the 413, the server read %d bytes; want it cut at 500ms", after, read.Load())
	}

	for name, head := range map[string]string{
		"past the drain": fmt.Sprintf("Content-Length: %d\r\n", 2*mib+1),
		"100-continue":   fmt.Sprintf("Content-Length: %d\r\nExpect: 100-continue\r\n", 3*mib/2),
	} {
		url, read = serveCounting(t, time.Minute)
		c, err := net.Dial("tcp", strings.TrimPrefix(url, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		fmt.Fprintf(c, "POST /v1/reports HTTP/1.1\r\nHost: x\r\n%s%s\r\n", auth, head)
		_ = c.SetReadDeadline(time.Now().Add(30 * time.Second))
		br := bufio.NewReader(c)
		status, err := br.ReadString('\n')
		if err != nil || !strings.HasPrefix(status, "HTTP/1.1 413 ") {
			t.Fatalf("%s: first line %q (%v), want 413 at once", name, status, err)
		}
		if rest, _ := io.ReadAll(br); !bytes.Contains(rest, []byte("body_too_large")) {
			t.Fatalf("%s: answer %q", name, rest)
		}
		if got := read.Load(); got > 4<<10 {
			t.Fatalf("%s: the server read %d bytes, want the headers only", name, got)
		}
	}
}

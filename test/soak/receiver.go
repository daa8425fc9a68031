package soak

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"errors"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"sync"
	"time"
)

// received is one POST the receiver got, as the comparison needs it:
// its webhook-id, what its body says, when it came and what it was
// answered. The headers and the body go to the oracle's file.
type received struct {
	At     time.Time
	ID     string // webhook-id
	Type   string // the body's type
	Report int64  // the body's data.id
	Status string // the body's data.status
	Answer int
}

// oracleLine is one delivery as test/sworacle/verify.mjs --lines takes
// it: the headers, the body's bytes in base64, and when it was received
// (Unix milliseconds), the instant the library's five-minute tolerance
// of webhook-timestamp is judged at, as the receiver would have.
type oracleLine struct {
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
	Now     int64             `json:"now"`
}

// receiver is the partner's webhook receiver on a loopback port: it
// keeps every POST (the headers and body in the oracle's file, one JSON
// line each), answers 500 to failShare of them (at random) and 204 to the
// rest, and can go away for a while (its listener and every connection
// closed) and come back on the same port.
type receiver struct {
	addr      string
	failShare float64
	mu        sync.Mutex
	srv       *http.Server
	log       []received
	file      *os.File
	lines     *bufio.Writer
	werr      error // the first failure to write the oracle's file
}

func newReceiver(failShare float64, oracleFile string) (*receiver, error) {
	f, err := os.Create(oracleFile)
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		f.Close()
		return nil, err
	}
	r := &receiver{addr: ln.Addr().String(), failShare: failShare, file: f, lines: bufio.NewWriterSize(f, 1<<20)}
	r.serve(ln)
	return r, nil
}

// url is the receiver's base URL.
func (r *receiver) url() string { return "http://" + r.addr }

func (r *receiver) serve(ln net.Listener) {
	srv := &http.Server{Handler: http.HandlerFunc(r.handle), ReadHeaderTimeout: 10 * time.Second}
	r.mu.Lock()
	r.srv = srv
	r.mu.Unlock()
	go func() { _ = srv.Serve(ln) }()
}

func (r *receiver) handle(w http.ResponseWriter, req *http.Request) {
	body, err := io.ReadAll(io.LimitReader(req.Body, 1<<20))
	if err != nil {
		return // cut: the sender sees no answer
	}
	status := http.StatusNoContent
	if rand.Float64() < r.failShare {
		status = http.StatusInternalServerError
	}
	at := time.Now()
	h := map[string]string{}
	for _, k := range []string{"webhook-id", "webhook-timestamp", "webhook-signature"} {
		h[k] = req.Header.Get(k)
	}
	line, _ := json.Marshal(oracleLine{Headers: h, Body: base64.StdEncoding.EncodeToString(body), Now: at.UnixMilli()})
	var b struct {
		Type string `json:"type"`
		Data struct {
			ID     int64  `json:"id"`
			Status string `json:"status"`
		} `json:"data"`
	}
	_ = json.Unmarshal(body, &b) // a body that is not this shape is a finding of the comparison
	r.mu.Lock()
	r.log = append(r.log, received{At: at, ID: h["webhook-id"], Type: b.Type, Report: b.Data.ID, Status: b.Data.Status, Answer: status})
	if _, err := r.lines.Write(append(line, '\n')); err != nil && r.werr == nil {
		r.werr = err
	}
	r.mu.Unlock()
	w.WriteHeader(status)
}

// flush writes out the oracle's file.
func (r *receiver) flush() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	return errors.Join(r.werr, r.lines.Flush())
}

// away closes the listener and every connection, waits d, and listens on
// the same address again.
func (r *receiver) away(d time.Duration) error {
	r.mu.Lock()
	srv := r.srv
	r.mu.Unlock()
	_ = srv.Close()
	time.Sleep(d)
	var ln net.Listener
	var err error
	for try := 0; try < 50; try++ { // the port was ours a moment ago
		if ln, err = net.Listen("tcp", r.addr); err == nil {
			r.serve(ln)
			return nil
		}
		time.Sleep(100 * time.Millisecond)
	}
	return errors.Join(errors.New("the receiver could not listen again on "+r.addr), err)
}

// got returns every POST so far.
func (r *receiver) got() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]received(nil), r.log...)
}

func (r *receiver) close() {
	r.mu.Lock()
	defer r.mu.Unlock()
	_ = r.srv.Close()
	_ = r.file.Close()
}

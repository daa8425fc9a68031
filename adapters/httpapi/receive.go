package httpapi

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
)

// receive reads a report's body once a place among the bodies being
// received is free for partner, and gives the place back when the body
// is in (partner is partnerOf's key). The body's bytes are reserved in
// res as they arrive, a buffer at a time (readBody), whatever length the
// body declares.
func (s *Server) receive(w http.ResponseWriter, r *http.Request, partner string, res *hold) ([]byte, error) {
	return s.receiveBody(w, r, intake{
		gate: s.receiving, key: partner, limit: s.Limits.MaxBody,
		read: func(body io.Reader) ([]byte, error) {
			s.metrics.Receiving(1)
			defer s.metrics.Receiving(-1)
			// One byte past the bound: MaxBytesReader then tells a body over it.
			return readBody(body, r.ContentLength, s.Limits.MaxBody+1, res.cover)
		},
		busy: func() error {
			return s.turnAway(w, "Servicio ocupado: demasiados cuerpos de reporte llegando a la vez; reintente en un momento")
		},
		tooLarge: tooLarge(s.Limits.MaxBody),
		tooSlow:  s.bodyTooSlow(),
		broken:   &domain.Error{Kind: domain.ErrInvalidInput, Code: "body_read", Message: "No se pudo leer el cuerpo completo"},
	})
}

// intake is what differs between the bodies receiveBody reads (a
// report's, a token request's): the gate and the key whose place a body
// takes while it arrives, the most bytes it may have, how it is read,
// and the answers of a body turned away, too large, too slow or broken
// off.
type intake struct {
	gate  *keyedGate
	key   string
	limit int64
	read  func(io.Reader) ([]byte, error)
	busy  func() error // the gate has no place for key

	tooLarge, tooSlow, broken error
}

// receiveBody reads a body while it holds a place in in.gate for in.key:
// at most in.limit bytes, cut when it falls behind Limits.MinBodyRate by
// more than Limits.BodyRateGrace (rateGuard). What was
// read comes back with any error, so that the caller can give its
// memory back.
func (s *Server) receiveBody(w http.ResponseWriter, r *http.Request, in intake) ([]byte, error) {
	if !in.gate.enter(in.key) {
		return nil, in.busy()
	}
	defer in.gate.leave(in.key)
	guard := newRateGuard(w, r.Body, s.Limits.MinBodyRate, s.Limits.BodyRateGrace)
	defer guard.stop()
	body, err := in.read(http.MaxBytesReader(w, io.NopCloser(guard), in.limit))
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, &mbe):
		return body, in.tooLarge
	case errors.Is(err, errOverBudget):
		return body, s.turnAway(w, msgOverBudget)
	case errors.Is(err, errBodyTooSlow):
		s.metrics.BodyTooSlow()
		// The connection's read side is spent: nothing more is read on it.
		w.Header().Set("Connection", "close")
		return body, in.tooSlow
	}
	return body, in.broken
}

// msgOverBudget is the message of a report turned away because the bytes
// of the bodies in memory (Limits.MaxBytesInFlight) would pass the bound.
const msgOverBudget = "Servicio ocupado: demasiados bytes de reportes en memoria; reintente en un momento"

// turnAway is the 503 overloaded of a report whose body is left unread
// (or read only in part): the connection closes after the answer, and the
// server waits at most turnAwayGrace for the rest of the body. Within it,
// net/http reads up to 256 KiB more of a body and then half-closes the
// connection and waits before closing it, so that a client still sending
// reads the answer before its write fails (a close with unread bytes
// resets the connection, and the client's kernel drops the answer).
func (s *Server) turnAway(w http.ResponseWriter, msg string) error {
	w.Header().Set("Connection", "close")
	_ = http.NewResponseController(w).SetReadDeadline(time.Now().Add(turnAwayGrace))
	return s.overloaded(msg)
}

// turnAwayGrace bounds how long a turned-away body is still read.
const turnAwayGrace = time.Second

// overloaded is the 503 of a report turned away before it starts.
func (s *Server) overloaded(msg string) error {
	s.metrics.Overloaded()
	e := domain.NewError(domain.ErrUnavailable, codeOverloaded, msg)
	e.RetryAfter = time.Second
	return e
}

// bodyTooSlow is the answer to a body cut for arriving slower than
// Limits.MinBodyRate (rateGuard).
func (s *Server) bodyTooSlow() error {
	return &domain.Error{Kind: errBodyTooSlow, Code: "body_too_slow",
		Message: "El cuerpo llegó más lento que el mínimo de " + formatBytes(s.Limits.MinBodyRate) + " por segundo; reintente"}
}

// errBodyTooSlow is the kind of a body cut for arriving slower than
// Limits.MinBodyRate (408 body_too_slow); it is the HTTP adapter's own,
// as the rule is about the transport, not about reports.
var errBodyTooSlow = errors.New("body too slow")

// rateGuard reads a request body and cuts it when it falls behind rate
// bytes per second by more than window: the body must keep up with the
// rate over any recent stretch, not on average since it started, so bytes
// sent early buy at most window of silence later (issue 32, finding 1: 60
// KiB sent at once bought 65 s, longer than http.read_timeout, at 1 KiB/s
// averaged since the start). due is the moment the body stops being fast
// enough unless more arrives: the start plus window at first, then each
// byte moves it 1/rate later, but never past window from now. Before each
// read a timer is armed for due; it moves the connection's read deadline
// into the past, which ends the read under way. The time the server
// spends between reads (allocating a body's next buffer, or waiting for a
// CPU on a loaded machine) is its own, not the client's: due moves on by
// it, so only the time a read waits for bytes counts against the client.
// The server's own deadlines (http.read_timeout) are never moved later.
type rateGuard struct {
	r      io.Reader
	rc     *http.ResponseController
	window time.Duration
	rate   int64 // bytes per second, > 0
	due    time.Time
	last   time.Time // when the last read returned (or the guard began)
	timer  *time.Timer

	mu  sync.Mutex
	cut bool
}

// newRateGuard guards r; window is Limits.BodyRateGrace, the time a body
// may take before its first bytes count and the most it may run ahead.
func newRateGuard(w http.ResponseWriter, r io.Reader, rate int64, window time.Duration) *rateGuard {
	now := time.Now()
	g := &rateGuard{r: r, rc: http.NewResponseController(w), window: window, rate: rate, due: now.Add(window), last: now}
	g.timer = time.AfterFunc(time.Hour, g.expire)
	g.timer.Stop()
	return g
}

// expire cuts the body: the read under way, and every later one, fails.
// A writer that cannot set deadlines (not a connection) leaves the read
// to finish; Read then reports the cut.
func (g *rateGuard) expire() {
	g.mu.Lock()
	g.cut = true
	g.mu.Unlock()
	_ = g.rc.SetReadDeadline(time.Unix(1, 0))
}

func (g *rateGuard) tooSlow() bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.cut
}

// Read reads from the body; errBodyTooSlow once the body was cut.
func (g *rateGuard) Read(p []byte) (int, error) {
	if g.tooSlow() {
		return 0, errBodyTooSlow
	}
	now := time.Now()
	if away := g.due.Add(now.Sub(g.last)); away.Before(now.Add(g.window)) { // the server's time away
		g.due = away
	} else {
		g.due = now.Add(g.window)
	}
	g.timer.Reset(g.due.Sub(now))
	n, err := g.r.Read(p)
	g.timer.Stop()
	g.last = time.Now()
	if n > 0 {
		g.due = g.earned(g.due, int64(n), g.last)
	}
	if err != nil && g.tooSlow() {
		return n, errBodyTooSlow
	}
	return n, err
}

// earned is due after n more bytes arrived at now: n/rate seconds later
// (written so that no product can overflow), at most window after now.
func (g *rateGuard) earned(due time.Time, n int64, now time.Time) time.Time {
	more := time.Duration(n/g.rate)*time.Second + time.Duration(n%g.rate)*time.Second/time.Duration(g.rate)
	if ahead := now.Add(g.window); more > ahead.Sub(due) {
		return ahead
	}
	return due.Add(more)
}

// stop disarms the timer once the body is read.
func (g *rateGuard) stop() { g.timer.Stop() }

package httpapi

import (
	"errors"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
)

// receive reads the body once a place among the bodies being received is
// free for partner, and gives the place back when the body is in.
func (s *Server) receive(w http.ResponseWriter, r *http.Request, partner string) ([]byte, error) {
	if !s.receiving.enter(partner) {
		// The body is left unread; so that the server does not wait for
		// it either, the connection closes after the answer.
		w.Header().Set("Connection", "close")
		_ = http.NewResponseController(w).SetReadDeadline(time.Unix(1, 0))
		return nil, s.overloaded("Servicio ocupado: demasiados cuerpos de reporte llegando a la vez; reintente en un momento")
	}
	defer s.receiving.leave(partner)
	s.metrics.receiving.Inc()
	defer s.metrics.receiving.Dec()
	guard := newRateGuard(w, r.Body, s.Limits.MinBodyRate, s.Limits.BodyRateGrace)
	defer guard.stop()
	body, err := readBody(http.MaxBytesReader(w, io.NopCloser(guard), s.Limits.MaxBody), r.ContentLength)
	var mbe *http.MaxBytesError
	switch {
	case err == nil:
		return body, nil
	case errors.As(err, &mbe):
		return body, tooLarge(s.Limits.MaxBody)
	case errors.Is(err, errBodyTooSlow):
		s.metrics.BodiesTooSlow.Inc()
		// The connection's read side is spent: nothing more is read on it.
		w.Header().Set("Connection", "close")
		return body, &domain.Error{Kind: errBodyTooSlow, Code: "body_too_slow",
			Message: "El cuerpo llegó más lento que el mínimo de " + formatBytes(s.Limits.MinBodyRate) + " por segundo; reintente"}
	}
	return body, &domain.Error{Kind: domain.ErrInvalidInput, Code: "body_read", Message: "No se pudo leer el cuerpo completo"}
}

// overloaded is the 503 of a report turned away before it starts.
func (s *Server) overloaded(msg string) error {
	s.metrics.Overloaded.Inc()
	e := domain.NewError(domain.ErrUnavailable, codeOverloaded, msg)
	e.RetryAfter = time.Second
	return e
}

// errBodyTooSlow is the kind of a body cut for arriving slower than
// Limits.MinBodyRate (408 body_too_slow); it is the HTTP adapter's own,
// as the rule is about the transport, not about reports.
var errBodyTooSlow = errors.New("body too slow")

// rateGuard reads a request body and cuts it when, after the grace
// period, fewer than rate bytes per second have arrived on average:
// before each read it arms a timer for the moment the bytes so far stop
// being enough, and the timer moves the connection's read deadline into
// the past, which ends the read under way. The server's own deadlines
// (http.read_timeout) are never moved later.
type rateGuard struct {
	r     io.Reader
	rc    *http.ResponseController
	start time.Time
	grace time.Duration
	rate  int64 // bytes per second, > 0
	n     int64
	timer *time.Timer

	mu  sync.Mutex
	cut bool
}

func newRateGuard(w http.ResponseWriter, r io.Reader, rate int64, grace time.Duration) *rateGuard {
	g := &rateGuard{r: r, rc: http.NewResponseController(w), start: time.Now(), grace: grace, rate: rate}
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
	// The moment the bytes so far stop being enough (n/rate seconds after
	// the grace), written so that no product can overflow.
	due := g.start.Add(g.grace + time.Duration(g.n/g.rate)*time.Second + time.Duration(g.n%g.rate)*time.Second/time.Duration(g.rate))
	g.timer.Reset(time.Until(due))
	n, err := g.r.Read(p)
	g.timer.Stop()
	g.n += int64(n)
	if err != nil && g.tooSlow() {
		return n, errBodyTooSlow
	}
	return n, err
}

// stop disarms the timer once the body is read.
func (g *rateGuard) stop() { g.timer.Stop() }

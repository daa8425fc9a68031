package httpapi

import (
	"io"
	"net/http"
	"strings"
	"time"
)

// refuseTooLarge answers a report body past Limits.MaxBody with 413 and
// then reads, and throws away, what the client still sends of it (drain),
// when a drain may let the client read the answer: Python's urllib and
// httpx write a whole body before they read, and a connection closed under
// them reaches them as "Broken pipe" (issue 36). read is how much of the
// body was already read. The connection closes after the answer either
// way.
//
// No drain when the client asked Expect: 100-continue and nothing was
// read: it has not sent the body and, told 413, will not; when the body
// declares more than the drain would read; or when the partner has no
// place among the bodies being received or no room in the bytes in flight
// for the drain's buffer (the drain costs what a body arriving costs, and
// counts where one does).
func (s *Server) refuseTooLarge(w http.ResponseWriter, r *http.Request, rt reportRoute, partner string, res *hold, read int64) {
	w.Header().Set("Connection", "close")
	bound := drainedUpTo*s.Limits.MaxBody - read // the most bytes the drain reads
	drain := !(read == 0 && expectsContinue(r)) &&
		(r.ContentLength < 0 || r.ContentLength-read <= bound) &&
		s.receiving.enter(partner)
	if drain {
		defer s.receiving.leave(partner)
		drain = res.cover(drainBuffer)
	}
	rc := http.NewResponseController(w)
	if drain {
		// The answer goes out before the body is read: full duplex keeps
		// net/http from closing the body when the answer is written.
		drain = rc.EnableFullDuplex() == nil
	}
	rt.fail(w, r, tooLarge(s.Limits.MaxBody))
	if !drain || rc.Flush() != nil {
		return
	}
	s.drain(w, r.Body, bound)
}

// drain reads and throws away up to bound bytes of body, a drainBuffer at
// a time, for at most Server.drainFor and no slower than
// Limits.MinBodyRate (rateGuard): a client that keeps sending past either
// bound is cut off (its connection is closed with bytes unread). The
// server's own read deadline (http.read_timeout) still holds: the timer
// only moves it into the past.
func (s *Server) drain(w http.ResponseWriter, body io.Reader, bound int64) {
	guard := newRateGuard(w, body, s.Limits.MinBodyRate, s.Limits.BodyRateGrace)
	defer guard.stop()
	timer := time.AfterFunc(s.drainFor, guard.expire)
	defer timer.Stop()
	rest, buf := io.LimitReader(guard, bound), make([]byte, drainBuffer)
	for {
		if _, err := rest.Read(buf); err != nil {
			return
		}
	}
}

// drainedUpTo is the largest body a drain reads to its end, in
// Limits.MaxBody: a body up to twice the limit (a partner's file a little
// too large) reads its 413; a larger one is cut off.
const drainedUpTo = 2

// drainBuffer is the buffer a drain reads into; the drain's hold in the
// bytes in flight covers it.
const drainBuffer = 32 << 10

// drainTime is Server.drainFor unless a test sets another.
const drainTime = 30 * time.Second

// expectsContinue tells whether the client waits for 100 Continue before
// it sends the body.
func expectsContinue(r *http.Request) bool {
	for _, v := range r.Header.Values("Expect") {
		if strings.EqualFold(strings.TrimSpace(v), "100-continue") {
			return true
		}
	}
	return false
}

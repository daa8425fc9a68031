package httpapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// reportRoute is what a route that takes a report does its own way: where
// it reads the token and how it answers a failure. The legacy POST and the
// /v1 report routes differ in these and in their answer to success, and in
// nothing else: the checks, bounds and order are runReport's.
type reportRoute struct {
	// token returns the request's token, or why there is none.
	token func(*http.Request) (tok, why string)
	// fail answers a refused or failed request.
	fail func(http.ResponseWriter, *http.Request, error)
	// keyed routes read Idempotency-Key (validate does not).
	keyed bool
}

// reportStep is what a route does with a decoded report, once it holds a
// report slot: submit or validate it, and answer success on w (which keeps
// the answer until the slot is given back: heldAnswer). ctx ends at the
// report's timeout or when the server stops, not when the partner hangs
// up. An error is answered by the route's fail.
type reportStep func(ctx context.Context, w http.ResponseWriter, p ports.Principal, members []domain.RawField, body []byte) error

// authenticate reads the route's token and verifies it; on failure it has
// answered, and returns false.
func (s *Server) authenticate(w http.ResponseWriter, r *http.Request, rt reportRoute) (ports.Principal, bool) {
	tok, why := rt.token(r)
	if why != "" {
		rt.fail(w, r, domain.InvalidToken(why))
		return ports.Principal{}, false
	}
	principal, err := s.Auth.Authenticate(r.Context(), tok)
	if err != nil {
		rt.fail(w, r, err)
		return ports.Principal{}, false
	}
	info(r).user = principal.User
	return principal, true
}

// runReport is the one pipeline of every route that takes a report. Order
// of checks: token (401) before the body is read, a repeated
// Idempotency-Key on a keyed route (400), Content-Type (415; 400 when it
// came more than once), declared
// size (413, then a bounded drain: refuseTooLarge), a place among the bodies being received (503 at once), the
// body's bytes in flight (503 at once, or while a body of unknown length
// arrives), the body itself (413, 408 when too slow), then the in-flight
// bound (503 at once), JSON, and step (the fields, read in NFC by the
// domain's catalogue, and what the route does). A body still arriving holds no
// in-flight slot; its bytes stay reserved until the report has been
// answered. The answer of a report that held a slot is written once the
// slot and the bytes are given back (heldAnswer).
func (s *Server) runReport(w http.ResponseWriter, r *http.Request, rt reportRoute, step reportStep) {
	principal, ok := s.authenticate(w, r, rt)
	if !ok {
		return
	}
	if rt.keyed && len(r.Header.Values("Idempotency-Key")) > 1 {
		// Contract §10: which key was meant cannot be known, as with two
		// Authorization headers.
		rt.fail(w, r, domain.NewError(domain.ErrInvalidInput, "invalid_request",
			"Idempotency-Key llegó más de una vez; envíe una sola"))
		return
	}
	switch mt, err := mediaType(r); {
	case errors.Is(err, errTwoContentTypes):
		rt.fail(w, r, domain.NewError(domain.ErrInvalidInput, "invalid_request",
			"Content-Type llegó más de una vez; envíe uno solo"))
		return
	case err != nil || mt != "application/json":
		rt.fail(w, r, domain.NewError(domain.ErrUnsupportedMediaType, "unsupported_media_type",
			"Content-Type debe ser application/json"))
		return
	}
	partner := partnerOf(principal)
	res := s.bytes.hold(partner)
	defer res.release()
	if r.ContentLength > s.Limits.MaxBody {
		s.refuseTooLarge(w, r, rt, partner, res, 0)
		return
	}
	body, err := s.receive(w, r, partner, res)
	reclaimed := false // the collection after a large body: at once when it is no longer used
	defer func() {
		if !reclaimed {
			s.reclaim.after(len(body))
		}
	}()
	switch {
	case errors.Is(err, domain.ErrTooLarge):
		s.refuseTooLarge(w, r, rt, partner, res, int64(len(body)))
		return
	case err != nil:
		rt.fail(w, r, err)
		return
	}
	// A place among the answers a partner has not read yet (heldAnswer):
	// they hold no slot and no bytes, so this bounds them.
	if !s.answers.enter(partner) {
		rt.fail(w, r, s.overloaded("Servicio ocupado: demasiadas respuestas sin leer; reintente en un momento"))
		return
	}
	defer s.answers.leave(partner)
	select {
	case s.inFlight <- struct{}{}:
	default:
		rt.fail(w, r, s.overloaded("Servicio ocupado: demasiados reportes en proceso; reintente en un momento"))
		return
	}
	held := &heldAnswer{w: w}
	func() {
		defer func() { <-s.inFlight }()
		s.inSlot(held, r, rt, principal, body, step)
	}()
	res.release()
	reclaimed = true
	s.reclaim.after(len(body)) // not after an answer that may wait for http.write_timeout
	held.send()
}

// inSlot is runReport's part that holds a report slot: the JSON, then
// step; it answers on w.
func (s *Server) inSlot(w http.ResponseWriter, r *http.Request, rt reportRoute, principal ports.Principal, body []byte, step reportStep) {
	kept := membersPool.Get().(*[]domain.RawField)
	members, err := decodeObjectInto(*kept, body, s.Limits.MaxMembers)
	// The slice goes back when the step has ended (nothing keeps it: the
	// report holds its values, problems their own strings).
	defer func() {
		back := members
		if back == nil { // refused: the slice as it came, with what was read
			back = *kept
		}
		if cap(back) <= maxPooledMembers {
			clear(back[:cap(back)]) // no body's strings held between reports
			*kept = back[:0]
			membersPool.Put(kept)
		}
	}()
	if err != nil {
		rt.fail(w, r, err)
		return
	}
	// The partner may hang up; the report is finished or undone either
	// way. It ends at its timeout or when the server stops (Stop).
	if !s.work.begin() {
		e := domain.NewError(domain.ErrUnavailable, codeShuttingDown, "Servicio deteniéndose; reintente en un momento")
		e.RetryAfter = time.Second
		rt.fail(w, r, e)
		return
	}
	defer s.work.end()
	ctx, cancel := context.WithTimeout(context.WithoutCancel(r.Context()), s.Limits.ReportTimeout)
	defer cancel()
	defer context.AfterFunc(s.work.base, cancel)()
	if err := step(ctx, w, principal, members, body); err != nil {
		rt.fail(w, r, err)
	}
}

// membersPool keeps the top-level member slices of report bodies (one of
// 7 KB a report, allocated and scanned by the collector otherwise).
var membersPool = sync.Pool{New: func() any { s := make([]domain.RawField, 0, 96); return &s }}

// maxPooledMembers: a slice grown by a body of more members than a report
// has is not kept.
const maxPooledMembers = 128

// submission is the use case's view of a report request.
func submission(r *http.Request, p ports.Principal, members []domain.RawField, body []byte, read domain.MapOptions) ports.Submission {
	return ports.Submission{
		Principal: p, Members: members, IdempotencyKey: r.Header.Get("Idempotency-Key"), RequestID: info(r).id, Read: read,
		Client:     r.Context(), // the checks stop when the partner hangs up (the step's ctx does not end then)
		BodySHA256: func() string { sum := sha256.Sum256(body); return hex.EncodeToString(sum[:]) },
	}
}

// noteReceipt fills the log line and the metrics of a report the store
// answered; it sets Idempotent-Replayed on a replay.
func (s *Server) noteReceipt(w http.ResponseWriter, r *http.Request, receipt domain.Receipt) {
	ri := info(r)
	ri.reportID = receipt.ID
	if receipt.Replayed {
		w.Header().Set("Idempotent-Replayed", "true")
		ri.detail = "idempotent replay"
		s.metrics.ReportReplayed()
		return
	}
	s.metrics.ReportStored(receipt.FileSize)
}

package ports

import (
	"context"
	"errors"
	"strconv"
	"time"

	"github.com/lender/disbursementd/domain"
)

// attemptInternal is the class of an attempt this service could not make
// (an event it could not encode, an endpoint without a usable secret):
// the receiver was never called.
const attemptInternal = "internal"

// attempt makes one attempt of a leased delivery and records it. It
// returns without recording when the delivery cannot be loaded for a
// reason other than its absence: the lease runs out and the delivery is
// taken again (at least once).
func (s *Deliveries) attempt(ctx context.Context, ref DeliveryRef) {
	d, err := s.store.Load(ctx, ref.ID)
	switch {
	case errors.Is(err, domain.ErrNotFound):
		// Its event, report or endpoint went: never retried.
		s.finish(ctx, DeliveryOutcome{ID: ref.ID, EndpointSeq: ref.EndpointSeq, State: DeliveryFailed,
			Attempt: domain.Attempt{At: s.clock.Now(), Error: domain.AttemptEndpointChanged}}, "", true)
		return
	case err != nil:
		if ctx.Err() == nil {
			s.log.Error("webhook delivery: loading it failed; it is tried again when its lease runs out", "delivery", ref.ID, "error", err.Error())
		}
		return
	}
	start := s.clock.Now()
	a := domain.Attempt{EventID: d.Event.ID(), EndpointID: d.Endpoint.ID, At: start}
	if d.Endpoint.Status != domain.EndpointEnabled {
		a.Error = domain.AttemptEndpointChanged
		s.finish(ctx, DeliveryOutcome{ID: d.ID, EndpointSeq: d.Endpoint.Seq, State: DeliveryFailed, Attempt: a}, d.Event.ID(), true)
		return
	}
	req, err := s.request(d, start)
	var res WebhookResult
	if err != nil {
		s.log.Error("webhook delivery: the request could not be made; the receiver was not called", "event", a.EventID, "endpoint", a.EndpointID, "error", err.Error())
		res.Error = attemptInternal
	} else {
		// The lease outlasts Timeout by LeaseMargin: no other replica
		// starts this delivery while this POST may still run.
		actx, cancel := context.WithTimeout(ctx, s.o.Timeout)
		res = s.sender.Send(actx, req)
		cancel()
		s.obs.Attempted(res.Error, res.Duration)
	}
	a.StatusCode, a.Error, a.Duration = res.StatusCode, res.Error, res.Duration
	s.finish(ctx, s.judge(d, a, s.clock.Now()), a.EventID, false)
}

// request is the signed POST of d at now.
func (s *Deliveries) request(d Delivery, now time.Time) (WebhookRequest, error) {
	body, err := s.enc.WebhookBody(d.Event)
	if err != nil {
		return WebhookRequest{}, err
	}
	id := d.Event.ID()
	sig, ok := domain.SignWebhook(d.Endpoint.Secrets(now), id, now, body)
	if !ok {
		return WebhookRequest{}, errors.New("the endpoint has no secret that decodes")
	}
	return WebhookRequest{EndpointID: d.Endpoint.ID, URL: d.Endpoint.URL, Body: body, Header: map[string]string{
		"webhook-id":        id,
		"webhook-timestamp": strconv.FormatInt(now.Unix(), 10),
		"webhook-signature": sig,
	}}, nil
}

// judge decides what attempt a of d, ended at now, comes to: a 2xx
// delivers it; a failure schedules the next attempt, or fails it after
// the schedule's last, and disables an endpoint that has had no success
// for DisableAfter (since its last success, or its creation) when the
// receiver is at fault.
func (s *Deliveries) judge(d Delivery, a domain.Attempt, now time.Time) DeliveryOutcome {
	o := DeliveryOutcome{ID: d.ID, EndpointSeq: d.Endpoint.Seq, Attempt: a}
	if a.Error == "" && a.StatusCode >= 200 && a.StatusCode < 300 {
		o.State = DeliveryDelivered
		return o
	}
	if o.Attempt.Error == "" {
		o.Attempt.Error = domain.AttemptHTTPStatus
	}
	since := d.Endpoint.LastSuccessAt
	if since.IsZero() {
		since = d.Endpoint.CreatedAt
	}
	// A request this service could not make is its own fault, not the
	// receiver's: it never disables the endpoint.
	if a.Error != attemptInternal && !since.IsZero() && now.Sub(since) >= s.o.DisableAfter {
		o.State = DeliveryFailed
		o.DisableReason = "deshabilitado: ninguna entrega tuvo éxito desde " + since.UTC().Format(time.RFC3339) +
			" (" + s.o.DisableAfter.String() + " como máximo); corrija el receptor y pida al prestamista que lo habilite"
		return o
	}
	// d.Attempts were made before this one, the (d.Attempts+1)-th.
	delay, ok := s.o.Schedule.Next(d.Attempts+2, s.o.Jitter())
	if !ok {
		o.State = DeliveryFailed
		return o
	}
	o.State, o.NextAt = DeliveryPending, now.Add(delay)
	return o
}

// finish records o under this worker's lease. An attempt that Close cut
// short is recorded all the same, within finishGrace: it was made, and
// its delivery is due again at once on whichever replica runs.
func (s *Deliveries) finish(ctx context.Context, o DeliveryOutcome, event string, skipped bool) {
	if ctx.Err() != nil {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(context.WithoutCancel(ctx), finishGrace)
		defer cancel()
	}
	held, err := s.store.Finish(ctx, s.o.Owner, o)
	args := []any{"event", event, "endpoint", o.Attempt.EndpointID, "delivery", o.ID, "state", string(o.State),
		"status", o.Attempt.StatusCode, "class", o.Attempt.Error, "duration_ms", o.Attempt.Duration.Milliseconds()}
	switch {
	case err != nil:
		s.log.Error("webhook delivery: recording the attempt failed; it is tried again when its lease runs out", append(args, "error", err.Error())...)
		return
	case !held && skipped:
		s.log.Info("webhook delivery dropped: it, its event or its endpoint is gone", args...)
		return
	case !held:
		// Another replica took the delivery over: it decides. At least
		// once: this attempt may have reached the receiver too.
		s.log.Warn("webhook delivery: the lease was lost before the attempt was recorded; only the attempt is kept", args...)
		return
	}
	if o.State == DeliveryFailed {
		s.obs.GaveUp()
	}
	switch {
	case o.DisableReason != "":
		s.log.Warn("webhook endpoint disabled: no delivery succeeded for webhooks.disable_after", args...)
	case skipped:
		s.log.Info("webhook delivery failed: its event or endpoint changed before the attempt", args...)
	case o.State == DeliveryDelivered:
		s.log.Info("webhook delivered", args...)
	default:
		s.log.Info("webhook attempt failed", args...)
	}
}

// readBacklog tells the observer how many deliveries are pending and how
// old the oldest one's event is.
func (s *Deliveries) readBacklog(ctx context.Context) {
	n, oldest, err := s.store.Backlog(ctx)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Error("webhook deliveries: reading the backlog failed", "error", err.Error())
		}
		return
	}
	var age time.Duration
	if n > 0 && !oldest.IsZero() {
		age = max(0, s.clock.Now().Sub(oldest))
	}
	s.obs.Backlog(n, age)
}

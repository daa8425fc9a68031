package ports

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/lender/disbursementd/domain"
)

// DeliveryState is where a delivery (one event to one endpoint) stands.
type DeliveryState string

// The states of a delivery.
const (
	DeliveryPending   DeliveryState = "pending"
	DeliveryDelivered DeliveryState = "delivered"
	DeliveryFailed    DeliveryState = "failed" // the retry schedule ran out, or its event or endpoint went
)

// LostLease marks, in a delivery's lease, the holder a redelivery took it
// from: the lease's owner becomes LostLease + that holder's name, which
// no worker's own name begins with, and keeps its time, so that no
// replica starts the delivery while the attempt may still be under way;
// that holder's Finish frees its own mark only.
const LostLease = "lost:"

// MaxLeaseOwner is the longest name a worker's leases carry: the stores
// keep 64 bytes for a lease's owner, LostLease's mark included.
const MaxLeaseOwner = 64 - len(LostLease)

// CheckLeaseOwner refuses a lease owner a store cannot tell from another's
// or from a LostLease mark: "", over MaxLeaseOwner bytes, or beginning
// with LostLease.
func CheckLeaseOwner(owner string) error {
	if owner == "" || len(owner) > MaxLeaseOwner || strings.HasPrefix(owner, LostLease) {
		return fmt.Errorf("lease owner %q: want 1 to %d bytes, not beginning with %q", domain.Clip(owner), MaxLeaseOwner, LostLease)
	}
	return nil
}

// DeliveryStore keeps the deliveries of events to endpoints, shared by
// every replica through the database (contract §11): a delivery is
// attempted by one replica at a time, under a lease, and taken over when
// the lease runs out.
type DeliveryStore interface {
	// Dispatch takes up to limit events not yet dispatched and, for each,
	// makes one pending delivery, due at now, per enabled endpoint of its
	// partner that takes its type, and marks the event dispatched, in one
	// transaction; it returns how many events it dispatched. Replicas
	// dispatching at once make one delivery per event and endpoint.
	Dispatch(ctx context.Context, now time.Time, limit int) (int, error)
	// Due returns up to limit pending deliveries due at now that no live
	// lease holds, the longest due first, leaving out those of the
	// endpoints in busy (their EndpointSeq) and of the partners in
	// busyPartners (their endpoints' partner_user): the worker names the
	// endpoints and the partners it attempts as many at once as it may,
	// so that one endpoint's or one partner's backlog, due first, never
	// hides the others' deliveries. Each ref names its endpoint's partner.
	// A non-zero after reads only deliveries due at or after it: the worker
	// knows that nothing due by then is left for it to take, and its
	// look stays as small as what came since, whatever backlog the busy
	// endpoints keep.
	Due(ctx context.Context, now time.Time, limit int, busy []int64, busyPartners []string, after time.Time) ([]DeliveryRef, error)
	// Lease takes delivery id for owner until until when it is still
	// pending, due at now and not leased by another owner past now (a
	// LostLease mark is another owner). False when another replica took it
	// first: a lost race (a Galera certification failure included) is no
	// error. An owner CheckLeaseOwner refuses is an error.
	Lease(ctx context.Context, id int64, owner string, now, until time.Time) (bool, error)
	// Load returns a leased delivery with its event and endpoint (secrets
	// included). domain.ErrNotFound when the delivery, its event, its
	// report (purged) or its endpoint is gone.
	Load(ctx context.Context, id int64) (Delivery, error)
	// Finish records o.Attempt in the endpoint's log (keeping its newest
	// domain.MaxAttemptsListed) and, when owner still holds the lease,
	// sets the delivery's state (o.State, o.NextAt), frees the lease,
	// stamps the endpoint's last success on a delivery, and disables the
	// endpoint with o.DisableReason when it is set. False when the lease
	// was no longer owner's: only the attempt was recorded, and, when a
	// redelivery took the lease from owner and nobody leased it since
	// (owner's LostLease mark is still there), the lease is freed.
	Finish(ctx context.Context, owner string, o DeliveryOutcome) (bool, error)
	// RedeliverEvent makes user's event at p due again, at now, for each
	// of user's enabled endpoints that takes its type, and returns how
	// many deliveries it made due; domain.ErrNotFound for an event not
	// the partner's.
	RedeliverEvent(ctx context.Context, user string, p EventPosition, now time.Time) (int, error)
	// RedeliverSince makes every event created at or after since due again
	// at now, for endpoint (its public id) only when it is not "", and
	// returns how many deliveries it made due.
	RedeliverSince(ctx context.Context, since time.Time, endpoint string, now time.Time) (int, error)
	// Backlog returns how many deliveries are pending and when the event
	// of the oldest pending one was created (zero when none is).
	Backlog(ctx context.Context) (int64, time.Time, error)
	// PurgeEvents deletes, with apply, at most limit events created before
	// before with their deliveries and attempts, and says how many events;
	// without apply it only counts them all.
	PurgeEvents(ctx context.Context, before time.Time, limit int, apply bool) (int64, error)
}

// DeliveryRef is a due delivery as Due lists it: enough to bound the
// attempts per endpoint before it is leased.
type DeliveryRef struct {
	ID          int64
	EndpointSeq int64
	Partner     string // the endpoint's partner_user; "" when the endpoint is gone
}

// Delivery is a leased delivery, ready to attempt.
type Delivery struct {
	ID       int64
	Attempts int // attempts made before this one
	Event    domain.Event
	Endpoint domain.Endpoint
}

// DeliveryOutcome is what one attempt of a delivery came to.
type DeliveryOutcome struct {
	ID            int64
	EndpointSeq   int64
	Attempt       domain.Attempt
	State         DeliveryState
	NextAt        time.Time // when pending: the next attempt's time
	DisableReason string    // not "": disable the endpoint, saying this
}

// WebhookRequest is one POST of a delivery.
type WebhookRequest struct {
	EndpointID string // for the sender's bound of connections per endpoint
	URL        string
	Header     map[string]string // webhook-id, webhook-timestamp, webhook-signature
	Body       []byte
}

// WebhookResult is what a receiver made of a POST.
type WebhookResult struct {
	StatusCode int    // 0 when no answer came
	Error      string // "" for a 2xx; else a class: domain.AttemptTimeout, …
	Duration   time.Duration
}

// WebhookSender POSTs deliveries to partners' servers (somebody else's
// server): within its own bounded time, never following a redirect,
// reading at most 64 KiB of the answer, and connecting only to public
// addresses for a host not allowed otherwise (checked on the address
// dialled, after DNS).
type WebhookSender interface {
	Send(ctx context.Context, r WebhookRequest) WebhookResult
}

// DeliveryObserver is told what the delivery workers do, for the metrics.
type DeliveryObserver interface {
	// Attempted is called after each attempt with its class ("" for a
	// delivery) and how long it took.
	Attempted(class string, d time.Duration)
	// GaveUp is called when a delivery has failed for good.
	GaveUp()
	// Backlog is called with the pending deliveries and the age of the
	// oldest one's event, as Backlog read them.
	Backlog(pending int64, oldest time.Duration)
}

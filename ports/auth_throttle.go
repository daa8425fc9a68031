package ports

import (
	"context"
	"net/netip"
	"time"

	"github.com/lender/disbursementd/domain"
)

// The login throttle as Auth uses it: a rule per budget (user, address),
// the key an address is counted under, and the Check / Take / Cancel of a
// slot through the LoginThrottle port.

// ThrottleRule is a login budget: Limit failed attempts per Window. A
// Limit of 0 turns it off.
type ThrottleRule struct {
	Limit  int
	Window time.Duration
}

// addrKey is what an address's budget is kept under: an IPv4 address
// as is, an IPv6 address by its /64, the block a single host or customer
// line is given (one machine can use any of its 2^64 addresses).
func addrKey(addr string) string {
	a, err := netip.ParseAddr(addr)
	if err != nil {
		return addr
	}
	if a = a.Unmap(); a.Is4() {
		return a.String()
	}
	p, _ := a.WithZone("").Prefix(64)
	return p.String()
}

// check refuses an attempt whose key's budget is spent, taking
// nothing; errors as take's.
func (a *Auth) check(ctx context.Context, key ThrottleKey, which string, rule ThrottleRule, now time.Time) error {
	if a.o.Throttle == nil || rule.Limit <= 0 {
		return nil
	}
	v, err := a.o.Throttle.Check(ctx, key, rule.Limit, rule.Window, now)
	return refusal(v, err, which)
}

// take takes a slot of key's budget; a spent budget is ErrThrottled,
// with Detail naming which budget (user or address) and RetryAfter.
func (a *Auth) take(ctx context.Context, key ThrottleKey, which string, rule ThrottleRule, now time.Time) (Slot, error) {
	if a.o.Throttle == nil || rule.Limit <= 0 {
		return Slot{}, nil
	}
	s, err := a.o.Throttle.Take(ctx, key, rule.Limit, rule.Window, now)
	if err := refusal(s.Verdict, err, which); err != nil {
		return Slot{}, err
	}
	return s, nil
}

// refusal is the answer to a budget's verdict v (or to the throttle's
// failure err): nil when OK.
func refusal(v Verdict, err error, which string) error {
	if err != nil {
		return domain.Unavailable("login throttle unavailable").WithCause(err)
	}
	if !v.OK {
		return domain.Throttled(which, v.RetryAfter)
	}
	return nil
}

func (a *Auth) cancel(ctx context.Context, s Slot) {
	if s.ID != "" {
		// Best effort: a slot that stays counts as a failure and ages
		// out with the window.
		_ = a.o.Throttle.Cancel(context.WithoutCancel(ctx), s)
	}
}

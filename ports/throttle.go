package ports

import (
	"context"
	"time"
)

// LoginThrottle keeps login budgets: the attempts a key (a user name or a
// client address) made within a sliding window. The rule (limit, window)
// is the caller's; the adapter keeps the counts, in memory or shared by
// every replica, apart for each kind of key.
type LoginThrottle interface {
	// Take reserves one attempt for key when fewer than limit were
	// reserved in the window before now. A key of a kind it does not know
	// is an error. Check and take are one
	// atomic step, however many callers race, on every replica that shares
	// the adapter. now is the caller's clock; an adapter shared by
	// replicas dates attempts by its shared store's clock instead, so
	// replicas whose clocks differ still share one window. When the budget is spent nothing is reserved and the
	// slot's verdict says how long until one frees.
	Take(ctx context.Context, key ThrottleKey, limit int, window time.Duration, now time.Time) (Slot, error)
	// Check tells whether key's budget has a slot left, as Take would,
	// and takes nothing: a read, never a write or a lock. OK, or the
	// RetryAfter of a spent budget; a Take after it may still be refused
	// (others took the slot in between).
	Check(ctx context.Context, key ThrottleKey, limit int, window time.Duration, now time.Time) (Verdict, error)
	// Cancel gives a slot back: the attempt does not count.
	Cancel(ctx context.Context, s Slot) error
}

// ThrottleKind is what a login budget is kept per.
type ThrottleKind uint8

// The kinds of login budget.
const (
	ThrottleUser ThrottleKind = iota + 1 // a user name, byte for byte
	ThrottleAddr                         // a client address (an IPv6 one by its /64)
)

// ThrottleKinds lists every kind, for adapters that keep each apart.
var ThrottleKinds = []ThrottleKind{ThrottleUser, ThrottleAddr}

// String names the kind: "user", "addr".
func (k ThrottleKind) String() string {
	switch k {
	case ThrottleUser:
		return "user"
	case ThrottleAddr:
		return "addr"
	}
	return "unknown"
}

// ThrottleKey names one budget: its kind and what it counts, a user name
// or an address.
type ThrottleKey struct {
	Kind  ThrottleKind
	Value string
}

// Verdict is what a login budget says of one more attempt: the answer of
// LoginThrottle.Check, which takes nothing.
type Verdict struct {
	OK         bool          // the budget has a slot left (Check) or gave one (Take)
	RetryAfter time.Duration // when not OK: until the oldest attempt leaves the window
}

// Slot is the answer of LoginThrottle.Take: its verdict and, when OK, the
// slot it took, which Cancel gives back.
type Slot struct {
	Verdict
	Key ThrottleKey
	ID  string // the adapter's handle, for Cancel
}

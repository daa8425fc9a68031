// Package sysclock is the real clock behind ports.Clock.
package sysclock

import (
	"time"

	"github.com/lender/disbursementd/ports"
)

// Clock tells the system's time.
type Clock struct{}

var _ ports.Clock = Clock{}

// Now returns the current time.
func (Clock) Now() time.Time { return time.Now() }

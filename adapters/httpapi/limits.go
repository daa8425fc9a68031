package httpapi

import (
	"fmt"
	"time"
)

// Limits bound what one request may cost. The configuration gives each
// (config.HTTPConfig); New refuses one left at zero.
type Limits struct {
	MaxBody       int64         // report body bytes (413 beyond)
	MaxMembers    int           // JSON members in a report, nested ones included
	MaxProblems   int           // problems listed in a 400's errors[]
	MaxInFlight   int           // reports processed at once (503 beyond)
	ReportTimeout time.Duration // how long a report may take once accepted
	// The bodies being received (not yet processed): at most MaxReceiving
	// in all and MaxReceivingPerPartner for one partner (partnerOf: a
	// NIT, all its user names together; 503 beyond); a body that falls
	// behind MinBodyRate bytes per second by more than BodyRateGrace is
	// cut (408; rateGuard).
	MaxReceiving           int
	MaxReceivingPerPartner int
	MinBodyRate            int64
	BodyRateGrace          time.Duration
	// Partners' look-ups (GET /v1/reports and /v1/reports/{id}): at most
	// LookupRatePerPartner started per second by one partner (partnerOf),
	// in bursts of as many (429 slow_down beyond, before a slot is taken);
	// at most LookupSlotsPerPartner at once for one partner and
	// LookupSlots in all (503 overloaded beyond), apart from the reports'
	// slots, but a partner with none running always gets one beside them
	// (up to LookupSlots such first slots); each ends after LookupTimeout
	// (the store stops its statement then too).
	LookupRatePerPartner  int
	LookupSlots           int
	LookupSlotsPerPartner int
	LookupTimeout         time.Duration
	// MaxBytesInFlight bounds the memory that report bodies and what is
	// decoded from them hold at once (byteBudget; 503 beyond), reserved as
	// the bytes arrive. It must hold two of the largest bodies'
	// holds, so that one partner (who may hold partnerShare of it)
	// can still send one beside another's.
	MaxBytesInFlight int64
}

// check refuses a limit left at zero, and bytes in flight that cannot
// hold two of the largest bodies.
func (l *Limits) check() error {
	switch {
	case l.MaxBody <= 0 || l.MaxMembers <= 0 || l.MaxProblems <= 0 || l.MaxInFlight <= 0 || l.ReportTimeout <= 0:
		return fmt.Errorf("httpapi: the bounds of a report (%d body bytes, %d members, %d problems, %d in flight, %s) must be above 0",
			l.MaxBody, l.MaxMembers, l.MaxProblems, l.MaxInFlight, l.ReportTimeout)
	case l.MaxReceiving <= 0 || l.MaxReceivingPerPartner <= 0:
		return fmt.Errorf("httpapi: the bounds on bodies being received (%d in all, %d per partner) must be above 0",
			l.MaxReceiving, l.MaxReceivingPerPartner)
	case l.LookupSlots <= 0 || l.LookupSlotsPerPartner <= 0 || l.LookupTimeout <= 0 || l.LookupRatePerPartner <= 0:
		return fmt.Errorf("httpapi: the bounds of look-ups (%d in all, %d per partner, %s each, %d a second per partner) must be above 0",
			l.LookupSlots, l.LookupSlotsPerPartner, l.LookupTimeout, l.LookupRatePerPartner)
	case l.MinBodyRate <= 0 || l.BodyRateGrace <= 0:
		return fmt.Errorf("httpapi: the minimum body rate (%d bytes/s) and its grace (%s) must be above 0",
			l.MinBodyRate, l.BodyRateGrace)
	}
	if err := CheckBytesInFlight(l.MaxBytesInFlight, l.MaxBody); err != nil {
		return fmt.Errorf("httpapi: the bytes in flight: %w", err)
	}
	return nil
}

// CheckBytesInFlight refuses a budget of bytes in flight (maxBytes) that
// cannot take the holds of two of the largest bodies (maxBody
// bytes each): a report reserves heldPerBodyByte times its body, and one
// partner, which may hold a quarter of the budget or one such
// hold (partnerShare), must leave room for another's. The
// configuration's check asks it (http.max_bytes_in_flight).
func CheckBytesInFlight(maxBytes, maxBody int64) error {
	if maxBytes < 2*heldPerBodyByte*maxBody {
		return fmt.Errorf("%d bytes is less than %d × the largest body (%d bytes): a report reserves %d× its body, and one partner, which may hold a quarter of the budget or one such hold, must leave room for another's",
			maxBytes, 2*heldPerBodyByte, maxBody, heldPerBodyByte)
	}
	return nil
}

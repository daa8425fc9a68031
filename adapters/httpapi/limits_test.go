package httpapi

import "time"

// testLimits is l with each limit left at zero set: the one place the
// numbers of this package's tests are (a body rate of 1 byte/s and a
// minute's grace cut no test's body).
func testLimits(l Limits) Limits {
	set := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	set(&l.MaxMembers, 256)
	set(&l.MaxProblems, 100)
	set(&l.MaxInFlight, 256)
	set(&l.MaxReceiving, 64)
	set(&l.MaxReceivingPerPartner, 64)
	set(&l.LookupSlots, 16)
	set(&l.LookupSlotsPerPartner, 4)
	// Far above what any test asks in a second: only TestLookupRate's
	// numbers reach the rate.
	set(&l.LookupRatePerPartner, 100_000)
	if l.LookupTimeout == 0 {
		l.LookupTimeout = 5 * time.Second
	}
	if l.MaxBody == 0 {
		l.MaxBody = 32 << 20
	}
	if l.MaxBytesInFlight == 0 {
		l.MaxBytesInFlight = 1 << 30
	}
	if l.ReportTimeout == 0 {
		l.ReportTimeout = time.Minute
	}
	if l.MinBodyRate == 0 {
		l.MinBodyRate, l.BodyRateGrace = 1, time.Minute
	}
	return l
}

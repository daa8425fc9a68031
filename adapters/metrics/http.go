package metrics

import (
	"strconv"
	"time"
)

// The series the HTTP adapter reports to, one method each (httpapi.Meter
// declares them on its side).

// Request counts a request and its latency. Its labels must come from
// fixed sets (contract §7), which the caller maps them to: the router's
// pattern or "unmatched", the method as one of six values, the status
// code the server wrote.
func (m *Metrics) Request(route, method string, status int, d time.Duration) {
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.latency.WithLabelValues(route, method).Observe(d.Seconds())
}

// InFlight adds delta to the requests being served.
func (m *Metrics) InFlight(delta int) { m.inflight.Add(float64(delta)) }

// Receiving adds delta to the report bodies being received.
func (m *Metrics) Receiving(delta int) { m.receiving.Add(float64(delta)) }

// BytesReserved sets the bytes of http.max_bytes_in_flight held now.
func (m *Metrics) BytesReserved(n int64) { m.bytesReserved.Set(float64(n)) }

// ReportStored counts a report committed, with its file's size.
func (m *Metrics) ReportStored(fileBytes int64) {
	m.reportsStored.Inc()
	m.fileBytes.Add(float64(fileBytes))
}

// ReportReplayed counts a report answered with an earlier one's answer.
func (m *Metrics) ReportReplayed() { m.reportsReplayed.Inc() }

// ReportRefused counts a report not stored, by reason (a fixed set).
func (m *Metrics) ReportRefused(reason string) { m.reportsRefused.WithLabelValues(reason).Inc() }

// StoreError counts a report answered 5xx because a dependency failed.
func (m *Metrics) StoreError() { m.storeErrors.Inc() }

// Overloaded counts a report or look-up turned away with 503 overloaded.
func (m *Metrics) Overloaded() { m.overloaded.Inc() }

// LookupThrottled counts a look-up turned away with 429 slow_down.
func (m *Metrics) LookupThrottled() { m.lookupsThrottled.Inc() }

// LookupDelayed counts a look-up that waited for its partner's turn.
func (m *Metrics) LookupDelayed() { m.lookupsDelayed.Inc() }

// BodyTooSlow counts a report body cut with 408.
func (m *Metrics) BodyTooSlow() { m.bodiesTooSlow.Inc() }

// Exchange counts a credential exchange by outcome (a fixed set).
func (m *Metrics) Exchange(outcome string) { m.exchanges.WithLabelValues(outcome).Inc() }

// Ready records the outcome of one readiness check.
func (m *Metrics) Ready(check string, ok bool) {
	v := 0.0
	if ok {
		v = 1
	}
	m.ready.WithLabelValues(check).Set(v)
}

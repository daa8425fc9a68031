package httpapi

import (
	"net/http"
	"time"
)

// Meter is what the HTTP adapter reports to, declared on its side: the
// service's metrics (adapters/metrics, which the composition root
// passes) own the registry and serve it; the adapter counts requests and
// reports, and serves Handler on /metrics unless MetricsElsewhere.
type Meter interface {
	Request(route, method string, status int, d time.Duration)
	InFlight(delta int)
	Receiving(delta int)
	BytesReserved(n int64)
	ReportStored(fileBytes int64)
	ReportReplayed()
	ReportRefused(reason string)
	StoreError()
	Overloaded()
	LookupThrottled()
	LookupDelayed()
	BodyTooSlow()
	Exchange(outcome string)
	Decision(decision, outcome string)
	Ready(check string, ok bool)
	Handler() http.Handler
}

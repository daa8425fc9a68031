// Package httpapi is the HTTP adapter (chi): the legacy partner endpoint
// /api/partner_api.php, the partner API /v1 beside it over the same use
// cases and the same report pipeline, the built-in login over HTTP, the
// JWKS, probes, metrics and the OpenAPI document.
//
// Every answer is JSON with Access-Control-Allow-Origin: *. Outside /v1
// its "status" member follows the original specification: a string on
// the answers of a report (POST /api/partner_api.php), an integer on the
// token exchange and on 404, 405 and 500 elsewhere; the probes answer a
// word ("ok", "ready", "not_ready"); /auth/login has none. Under /v1,
// errors are RFC 9457 problems (application/problem+json), but those of
// /v1/token, which are RFC 6749's.
package httpapi

import (
	"errors"
	"log/slog"
	"net/http"
	"net/netip"
	"sync/atomic"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lender/disbursementd/ports"
)

// PartnerPath is the legacy path of both partner operations.
const PartnerPath = "/api/partner_api.php"

// Server holds what the handlers need.
type Server struct {
	Reports Reporter
	// Validator and Lookup serve the /v1 routes of reports; with neither,
	// /v1 serves only its token endpoint.
	Validator Validator
	Lookup    ReportReader
	// Events, Redeliver and Endpoints serve /v1/events and
	// /v1/webhook_endpoints (contract §11): all three, with Lookup, or
	// none. Decisions and Backoffice serve AdminHandler: both or none.
	Events     EventReader
	Redeliver  Redeliverer
	Endpoints  EndpointManager
	Decisions  Decider
	Backoffice BackofficeAuthenticator
	Exchange   TokenExchanger // GET of the partner endpoint and POST /v1/token: the configured login
	Login      TokenExchanger // POST /auth/login: the built-in login
	Auth       Authenticator
	// Rotation serves POST /v1/credentials/rotate (the built-in login's
	// users only: nil when login.url names another login).
	Rotation SecretRotator
	JWKS     func() ([]byte, error)
	Checks   []Check
	OpenAPI  []byte
	Log      *slog.Logger
	Limits   Limits
	// TrustedProxies may set X-Forwarded-For; nobody else can.
	TrustedProxies []netip.Prefix
	// Clock dates the look-up rate's turns (required).
	Clock ports.Clock
	// MetricsElsewhere leaves /metrics out of Handler: the caller serves
	// Metrics.Handler on an internal listener (http.metrics_addr).
	MetricsElsewhere bool

	metrics   Meter
	readyAt   *atomic.Int64 // unix nanoseconds of the last readiness run's start
	inFlight  chan struct{}
	receiving *keyedGate // the report bodies being received, by partner
	bytes     *byteBudget
	tokens    *keyedGate  // the bodies of POST /v1/token being received, by client address
	lookups   *keyedGate  // the look-ups under way, by partner
	smalls    *keyedGate  // the small bodies being received (readSmall), by partner or back-office client
	answers   *keyedGate  // the reports being processed or answered (heldAnswer), by partner
	lookRate  *lookupRate // the look-ups started, by partner
	quiet     *logGate
	work      *reportWork
	reclaim   *reclaimer
	drainFor  time.Duration // the longest a refused body is drained (drainTime)
}

// New returns a server that reports to m and serves its Handler on
// /metrics (unless MetricsElsewhere). It refuses a limit left at zero.
func New(s Server, m Meter) (*Server, error) {
	l := &s.Limits
	if err := l.check(); err != nil {
		return nil, err
	}
	switch {
	case m == nil:
		return nil, errors.New("httpapi: New needs a Meter (the service's metrics)")
	case s.Log == nil || s.Clock == nil:
		return nil, errors.New("httpapi: New needs a Log and a Clock")
	case (s.Validator == nil) != (s.Lookup == nil):
		return nil, errors.New("httpapi: the /v1 report routes need both Validator and Lookup")
	case s.Events != nil && (s.Lookup == nil || s.Redeliver == nil || s.Endpoints == nil),
		s.Events == nil && (s.Redeliver != nil || s.Endpoints != nil):
		return nil, errors.New("httpapi: the /v1 event and webhook routes need Events, Redeliver, Endpoints and the report routes")
	case (s.Decisions == nil) != (s.Backoffice == nil):
		return nil, errors.New("httpapi: the decision API needs both Decisions and Backoffice")
	}
	s.metrics = m
	s.readyAt = new(atomic.Int64)
	s.inFlight = make(chan struct{}, l.MaxInFlight)
	s.receiving = newKeyedGate(l.MaxReceiving, l.MaxReceivingPerPartner)
	s.bytes = newByteBudget(l.MaxBytesInFlight, partnerShare(l.MaxBytesInFlight, l.MaxBody), m.BytesReserved)
	// Token requests carry no token: their bodies are bounded per client
	// address, by the same numbers as report bodies per partner, apart
	// from them (a flood of token bodies takes no report's place). An
	// address with no token body under way always gets a place, beside
	// the total, while fewer than MaxReceiving addresses hold such a
	// first place: trickled bodies from a few hosts that fill the total
	// lock no other partner out of its token (the twentieth session's
	// review; the legacy token surfaces read through this gate too now).
	s.tokens = newFairGate(l.MaxReceiving, l.MaxReceivingPerPartner, l.MaxReceiving)
	// A partner with no look-up running always gets one, beside the
	// LookupSlots the others share, while fewer than LookupSlots
	// partners hold such a first slot.
	s.lookups = newFairGate(l.LookupSlots, l.LookupSlotsPerPartner, l.LookupSlots)
	// The small bodies (a webhook endpoint, a decision) are read before
	// any other place is taken; they are bounded by caller (the
	// twenty-first session's review held 120 trickled endpoint bodies
	// from one token with no bound but the look-up rate) by the numbers
	// of the place each takes next, a look-up's or a decision's: with
	// max_receiving's (256 a partner by default) those 120 still fit.
	s.smalls = newFairGate(l.LookupSlots, l.LookupSlotsPerPartner, l.LookupSlots)
	// A report's answer is written after its slot and bytes are given
	// back (heldAnswer); one a client does not read waits up to
	// http.write_timeout. The reports from their slot to the end of
	// their answer are bounded by partner as bodies being received are,
	// with first places: the answers kept (up to 64 KiB each) are
	// bounded, and a partner whose clients read nothing is turned away
	// 503 while another still gets a place.
	s.answers = newFairGate(l.MaxReceiving, l.MaxReceivingPerPartner, l.MaxReceiving)
	s.lookRate = newLookupRate(l.LookupRatePerPartner, lookupRateKeys)
	s.quiet = newLogGate(10_000)
	s.work = newReportWork()
	s.reclaim = newReclaimer()
	if s.drainFor == 0 {
		s.drainFor = drainTime
	}
	return &s, nil
}

// Handler returns the routes.
func (s *Server) Handler() http.Handler {
	r := chi.NewRouter()
	rt := &routes{mux: r, allowed: map[string][]string{}}
	rt.notAllowed = func(w http.ResponseWriter, req *http.Request) {
		if isV1(req.URL.Path) {
			rt.problemNotAllowed(w, req)
			return
		}
		w.Header().Set("Allow", rt.allow(req.URL.Path))
		writeJSON(w, http.StatusMethodNotAllowed, map[string]any{"status": http.StatusMethodNotAllowed, "message": "Método no permitido"})
	}
	observe := func(next http.Handler) http.Handler { return s.observeRoutes(rt, next) }
	r.Use(observe, framing, cors)
	rt.handle(http.MethodGet, PartnerPath, s.handleToken)
	rt.handle(http.MethodPost, PartnerPath, s.handleReport)
	rt.handle(http.MethodPost, "/v1/token", s.handleV1Token)
	if s.Lookup != nil {
		rt.handle(http.MethodPost, "/v1/reports", noParams(s.handleV1Report, s.v1Error))
		rt.handle(http.MethodGet, "/v1/reports", s.handleV1List)
		rt.handle(http.MethodPost, "/v1/reports/validate", noParams(s.handleV1Validate, s.v1Error))
		rt.handle(http.MethodGet, "/v1/reports/{id}", noParams(s.handleV1Get, s.v1Error))
	}
	if s.Events != nil {
		s.eventRoutes(rt)
	}
	if s.Rotation != nil {
		rt.handle(http.MethodPost, "/v1/credentials/rotate", noParams(s.handleV1Rotate, s.v1Error))
	}
	if s.Login != nil {
		rt.handle(http.MethodPost, "/auth/login", s.handleLogin)
	}
	rt.get("/.well-known/jwks.json", s.handleJWKS)
	rt.get("/healthz", func(w http.ResponseWriter, _ *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"status": "ok"})
	})
	rt.get("/readyz", s.handleReady)
	if !s.MetricsElsewhere {
		rt.get("/metrics", s.metrics.Handler().ServeHTTP)
	}
	rt.get("/openapi.yaml", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/yaml; charset=utf-8")
		_, _ = w.Write(s.OpenAPI)
	})
	r.NotFound(func(w http.ResponseWriter, req *http.Request) {
		if isV1(req.URL.Path) {
			problemNotFound(w, req)
			return
		}
		writeJSON(w, http.StatusNotFound, map[string]any{"status": http.StatusNotFound, "message": "Ruta no encontrada"})
	})
	r.MethodNotAllowed(rt.notAllowed)
	return r
}

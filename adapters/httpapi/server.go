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
	"fmt"
	"log/slog"
	"net/http"
	"net/netip"
	"time"

	"github.com/go-chi/chi/v5"

	"github.com/lender/disbursementd/ports"
)

// PartnerPath is the legacy path of both partner operations.
const PartnerPath = "/api/partner_api.php"

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
	// reservations, so that one partner (who may hold partnerShare of it)
	// can still send one beside another's.
	MaxBytesInFlight int64
}

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
	JWKS       func() ([]byte, error)
	Checks     []Check
	OpenAPI    []byte
	Log        *slog.Logger
	Limits     Limits
	// TrustedProxies may set X-Forwarded-For; nobody else can.
	TrustedProxies []netip.Prefix
	// Clock dates the log gate's windows (the system's when nil).
	Clock ports.Clock
	// MetricsElsewhere leaves /metrics out of Handler: the caller serves
	// Metrics.Handler on an internal listener (http.metrics_addr).
	MetricsElsewhere bool

	metrics   *Metrics
	inFlight  chan struct{}
	receiving *keyedGate // the report bodies being received, by partner
	bytes     *byteBudget
	tokens    *keyedGate  // the bodies of POST /v1/token being received, by client address
	lookups   *keyedGate  // the look-ups under way, by partner
	lookRate  *lookupRate // the look-ups started, by partner
	quiet     *logGate
	work      *reportWork
	reclaim   *reclaimer
}

// New returns a server with its metrics. It refuses a limit left at zero.
func New(s Server, m *Metrics) (*Server, error) {
	l := &s.Limits
	switch {
	case l.MaxBody <= 0 || l.MaxMembers <= 0 || l.MaxProblems <= 0 || l.MaxInFlight <= 0 || l.ReportTimeout <= 0:
		return nil, fmt.Errorf("httpapi: the bounds of a report (%d body bytes, %d members, %d problems, %d in flight, %s) must be above 0",
			l.MaxBody, l.MaxMembers, l.MaxProblems, l.MaxInFlight, l.ReportTimeout)
	case l.MaxReceiving <= 0 || l.MaxReceivingPerPartner <= 0:
		return nil, fmt.Errorf("httpapi: the bounds on bodies being received (%d in all, %d per partner) must be above 0",
			l.MaxReceiving, l.MaxReceivingPerPartner)
	case l.LookupSlots <= 0 || l.LookupSlotsPerPartner <= 0 || l.LookupTimeout <= 0 || l.LookupRatePerPartner <= 0:
		return nil, fmt.Errorf("httpapi: the bounds of look-ups (%d in all, %d per partner, %s each, %d a second per partner) must be above 0",
			l.LookupSlots, l.LookupSlotsPerPartner, l.LookupTimeout, l.LookupRatePerPartner)
	case l.MinBodyRate <= 0 || l.BodyRateGrace <= 0:
		return nil, fmt.Errorf("httpapi: the minimum body rate (%d bytes/s) and its grace (%s) must be above 0",
			l.MinBodyRate, l.BodyRateGrace)
	case l.MaxBytesInFlight < 2*heldPerBodyByte*l.MaxBody:
		return nil, fmt.Errorf("httpapi: the bytes in flight (%d) must hold the reservations of two of the largest bodies (2 × %d × %d)",
			l.MaxBytesInFlight, heldPerBodyByte, l.MaxBody)
	case (s.Validator == nil) != (s.Lookup == nil):
		return nil, errors.New("httpapi: the /v1 report routes need both Validator and Lookup")
	case s.Events != nil && (s.Lookup == nil || s.Redeliver == nil || s.Endpoints == nil),
		s.Events == nil && (s.Redeliver != nil || s.Endpoints != nil):
		return nil, errors.New("httpapi: the /v1 event and webhook routes need Events, Redeliver, Endpoints and the report routes")
	case (s.Decisions == nil) != (s.Backoffice == nil):
		return nil, errors.New("httpapi: the decision API needs both Decisions and Backoffice")
	}
	s.metrics = m
	if s.Log == nil {
		s.Log = slog.Default()
	}
	if s.Clock == nil {
		s.Clock = wallClock{}
	}
	s.inFlight = make(chan struct{}, l.MaxInFlight)
	s.receiving = newKeyedGate(l.MaxReceiving, l.MaxReceivingPerPartner)
	s.bytes = newByteBudget(l.MaxBytesInFlight, partnerShare(l.MaxBytesInFlight, l.MaxBody), m.bytesReserved)
	// Token requests carry no token: their bodies are bounded per client
	// address, by the same numbers as report bodies per partner, apart
	// from them (a flood of token bodies takes no report's place).
	s.tokens = newKeyedGate(l.MaxReceiving, l.MaxReceivingPerPartner)
	// A partner with no look-up running always gets one, beside the
	// LookupSlots the others share, while fewer than LookupSlots
	// partners hold such a first slot.
	s.lookups = newFairGate(l.LookupSlots, l.LookupSlotsPerPartner, l.LookupSlots)
	s.lookRate = newLookupRate(l.LookupRatePerPartner, lookupRateKeys)
	s.quiet = newLogGate(10_000)
	s.work = newReportWork()
	s.reclaim = newReclaimer()
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
		rt.handle(http.MethodPost, "/v1/reports", s.handleV1Report)
		rt.handle(http.MethodGet, "/v1/reports", s.handleV1List)
		rt.handle(http.MethodPost, "/v1/reports/validate", s.handleV1Validate)
		rt.handle(http.MethodGet, "/v1/reports/{id}", s.handleV1Get)
	}
	if s.Events != nil {
		s.eventRoutes(rt)
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

type wallClock struct{}

func (wallClock) Now() time.Time { return time.Now() }

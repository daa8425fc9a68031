package httpapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/lender/disbursementd/adapters/metrics"
	"github.com/lender/disbursementd/adapters/sysclock"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
)

// fakeV1 is the validator and the report reader of the /v1 handler tests.
type fakeV1 struct {
	validateErr error
	stored      domain.StoredReport
	getErr      error
}

func (f *fakeV1) Validate(context.Context, ports.Submission) error { return f.validateErr }

func (f *fakeV1) Get(_ context.Context, _ string, id int64) (domain.StoredReport, error) {
	r := f.stored
	r.ID = id
	return r, f.getErr
}

func (f *fakeV1) List(context.Context, ports.ListQuery) (ports.Page, error) { return ports.Page{}, nil }

// newV1Harness is newHarness with the /v1 report routes served.
func newV1Harness(t *testing.T, limits Limits) (*harness, *fakeV1) {
	t.Helper()
	h := newHarness(t, limits)
	v1 := &fakeV1{stored: domain.StoredReport{StoredReceipt: domain.StoredReceipt{CreditNumber: "CR-1",
		ReceivedAt: time.Date(2026, 11, 26, 10, 0, 0, 123e6, time.UTC)}}}
	h.rebuild(t, func(s *Server) { s.Validator, s.Lookup = v1, v1 })
	return h, v1
}

var v1Headers = map[string]string{"Authorization": "Bearer good", "Content-Type": "application/json"}

func TestNewRefusesHalfOfV1(t *testing.T) {
	for _, s := range []Server{{Validator: &fakeV1{}}, {Lookup: &fakeV1{}}} {
		s.Limits = testLimits(Limits{})
		if _, err := New(s, metrics.New()); err == nil {
			t.Errorf("New with Validator %v and Lookup %v: no error", s.Validator != nil, s.Lookup != nil)
		}
	}
}

// TestV1ValidateTakesAReportSlot: validate is turned away like a report
// when every report slot is taken (contract §8 clarifications).
func TestV1ValidateTakesAReportSlot(t *testing.T) {
	h, _ := newV1Harness(t, Limits{MaxInFlight: 1})
	h.reports.hold, h.reports.started = make(chan struct{}), make(chan struct{}, 1)
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if a := h.do(t, "POST", "/v1/reports", v1Headers, `{}`); a.status != 201 {
			t.Errorf("held report: %d %s", a.status, a.raw)
		}
	}()
	<-h.reports.started
	a := h.do(t, "POST", "/v1/reports/validate", v1Headers, `{}`)
	if a.status != 503 || a.body["code"] != "overloaded" || a.header.Get("Retry-After") == "" {
		t.Fatalf("validate beside a held report: %d %s", a.status, a.raw)
	}
	close(h.reports.hold)
	wg.Wait()
	if a := h.do(t, "POST", "/v1/reports/validate", v1Headers, `{}`); a.status != 200 {
		t.Fatalf("validate once the slot is free: %d %s", a.status, a.raw)
	}
}

// TestV1ReplayShowsTheStoredReceipt: a replay answers 200 with the
// receipt Reports.Submit returns (the row's as stored now, its decision
// included) and the first answer's Location, without a second call to
// the store: a look-up that would fail changes nothing.
func TestV1ReplayShowsTheStoredReceipt(t *testing.T) {
	h, v1 := newV1Harness(t, Limits{})
	at := time.Date(2026, 11, 26, 10, 0, 0, 123e6, time.UTC)
	h.reports.receipt = domain.Receipt{StoredReceipt: domain.StoredReceipt{ID: 7, CreditNumber: "CR-1", ReceivedAt: at,
		Status: domain.StatusAccepted, Decision: domain.Decision{Status: domain.StatusAccepted, At: at.Add(time.Hour), By: "backoffice:ops"}}, Replayed: true}
	v1.getErr = domain.NewError(domain.ErrNotFound, "not_found", domain.MsgNotFound)
	a := h.do(t, "POST", "/v1/reports", v1Headers, `{}`)
	if a.status != 200 || a.header.Get("Idempotent-Replayed") != "true" || a.header.Get("Location") != "/v1/reports/7" ||
		a.body["received_at"] != "2026-11-26T10:00:00.123Z" || a.body["numero_credito"] != "CR-1" || a.body["id"] != float64(7) ||
		a.body["file"] != nil || a.body["status"] != "accepted" {
		t.Fatalf("replay: %d %v %s", a.status, a.header, a.raw)
	}
	h.reports.receipt.Replayed = false
	h.reports.receipt.Status, h.reports.receipt.Decision = domain.StatusReceived, domain.Decision{}
	if a := h.do(t, "POST", "/v1/reports", v1Headers, `{}`); a.status != 201 || a.header.Get("Idempotent-Replayed") != "" ||
		a.header.Get("Location") != "/v1/reports/7" || a.body["status"] != "received" {
		t.Fatalf("first answer: %d %v %s", a.status, a.header, a.raw)
	}
}

// TestV1StatusTable: the /v1 surfaces of the one status table.
func TestV1StatusTable(t *testing.T) {
	for _, tt := range []struct {
		err           error
		v1, token     int
		tokenCode     string
		reportsLegacy int
	}{
		{domain.NewError(domain.ErrInvalidToken, "invalid_token", "x"), 401, 401, "invalid_client", 401},
		{domain.NewError(domain.ErrInvalidClient, "invalid_client", "x"), 401, 401, "invalid_client", 400},
		{domain.NewError(domain.ErrInvalidInput, "invalid_json", "x"), 400, 400, "invalid_request", 400},
		{domain.InvalidReport([]domain.Problem{{Field: "a", Code: "required"}}), 422, 400, "invalid_request", 400},
		{&domain.Error{Kind: domain.ErrTooLarge, Code: "invalid_report", Problems: []domain.Problem{{Code: domain.CodeFileTooLarge}}}, 413, 400, "invalid_request", 413},
		{domain.NewError(domain.ErrNotFound, "not_found", "x"), 404, 401, "invalid_client", 404},
		{domain.NewError(errUnsupportedGrant, "unsupported_grant_type", "x"), 400, 400, "unsupported_grant_type", 400},
		{domain.NewError(domain.ErrUnsupportedMediaType, "unsupported_media_type", "x"), 415, 400, "invalid_request", 415},
		{domain.NewError(domain.ErrThrottled, "slow_down", "x"), 429, 429, "slow_down", 429},
		{domain.NewError(domain.ErrUnavailable, "store_failed", "x"), 503, 503, "temporarily_unavailable", 503},
		{errors.New("boom"), 500, 500, "server_error", 500},
	} {
		t.Run(fmt.Sprintf("%d-%d-%s", tt.v1, tt.token, tt.tokenCode), func(t *testing.T) {
			if got, _ := statusOf(tt.err, onV1); got != tt.v1 {
				t.Errorf("v1: %d, want %d", got, tt.v1)
			}
			if got, code := statusOf(tt.err, onV1Token); got != tt.token || code != tt.tokenCode {
				t.Errorf("v1 token: %d %s, want %d %s", got, code, tt.token, tt.tokenCode)
			}
			if got, _ := statusOf(tt.err, onReport); got != tt.reportsLegacy {
				t.Errorf("legacy report: %d, want %d (unchanged)", got, tt.reportsLegacy)
			}
		})
	}
}

// TestV1PanicIsAProblem: a /v1 handler that panics answers a problem, and
// the token endpoint its OAuth error.
func TestV1PanicIsAProblem(t *testing.T) {
	h, _ := newV1Harness(t, Limits{})
	mux := h.srv.observe(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic("boom") }))
	ts := httptest.NewServer(mux)
	defer ts.Close()
	for path, ct := range map[string]string{"/v1/reports": "application/problem+json", "/v1/token": "application/json; charset=utf-8"} {
		resp, err := http.Post(ts.URL+path, "application/json", nil)
		if err != nil {
			t.Fatal(err)
		}
		_ = resp.Body.Close()
		if resp.StatusCode != 500 || resp.Header.Get("Content-Type") != ct {
			t.Errorf("%s: %d %s, want 500 %s", path, resp.StatusCode, resp.Header.Get("Content-Type"), ct)
		}
	}
}

// TestNewRefusesZeroLimits: the server takes every limit from the
// configuration and chooses none itself: one left at zero is an error.
func TestNewRefusesZeroLimits(t *testing.T) {
	for name, zero := range map[string]func(*Limits){
		"MaxBody":                           func(l *Limits) { l.MaxBody = 0 },
		"MaxMembers":                        func(l *Limits) { l.MaxMembers = 0 },
		"MaxProblems":                       func(l *Limits) { l.MaxProblems = 0 },
		"MaxInFlight":                       func(l *Limits) { l.MaxInFlight = 0 },
		"ReportTimeout":                     func(l *Limits) { l.ReportTimeout = 0 },
		"MaxReceiving":                      func(l *Limits) { l.MaxReceiving = 0 },
		"MaxReceivingPerPartner":            func(l *Limits) { l.MaxReceivingPerPartner = 0 },
		"MinBodyRate":                       func(l *Limits) { l.MinBodyRate = 0 },
		"BodyRateGrace":                     func(l *Limits) { l.BodyRateGrace = 0 },
		"MaxBytesInFlight":                  func(l *Limits) { l.MaxBytesInFlight = 0 },
		"MaxBytesInFlight below two bodies": func(l *Limits) { l.MaxBytesInFlight = 2*heldPerBodyByte*l.MaxBody - 1 },
		"LookupSlots":                       func(l *Limits) { l.LookupSlots = 0 },
		"LookupSlotsPerPartner":             func(l *Limits) { l.LookupSlotsPerPartner = 0 },
		"LookupTimeout":                     func(l *Limits) { l.LookupTimeout = 0 },
		"LookupRatePerPartner":              func(l *Limits) { l.LookupRatePerPartner = 0 },
	} {
		l := testLimits(Limits{})
		zero(&l)
		if _, err := New(Server{Limits: l}, metrics.New()); err == nil {
			t.Errorf("New with %s 0: no error", name)
		}
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	if _, err := New(Server{Limits: testLimits(Limits{}), Log: log, Clock: sysclock.Clock{}}, metrics.New()); err != nil {
		t.Fatalf("New with every limit set: %v", err)
	}
	// Nothing is defaulted: a missing logger or clock is refused, as the
	// use cases' constructors refuse theirs.
	for name, s := range map[string]Server{"Log": {Clock: sysclock.Clock{}}, "Clock": {Log: log}} {
		s.Limits = testLimits(Limits{})
		if _, err := New(s, metrics.New()); err == nil || !strings.Contains(err.Error(), "Log and a Clock") {
			t.Errorf("New without %s = %v, want it refused", name, err)
		}
	}
}

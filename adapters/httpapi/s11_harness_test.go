package httpapi

import (
	"encoding/json"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/ports"
	"github.com/lender/disbursementd/test/fakes"
	"github.com/lender/disbursementd/test/fixture"
)

// s11 is a server of contract §11's surfaces on the real use cases
// (ports) over the in-memory stores of test/fakes, on a real listener:
// the partner's routes at url, the decision API at admin.
type s11 struct {
	*harness
	admin    string
	clock    *fakes.Clock
	store    *fakes.Outbox
	office   *ports.Backoffice
	notified int
}

// listDelay is events.list_delay in these tests.
const listDelay = 5 * time.Second

func newS11(t *testing.T, limits Limits) *s11 {
	t.Helper()
	h := newHarness(t, limits)
	x := &s11{harness: h, clock: fakes.NewClock(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)), store: fakes.NewOutbox()}
	reports, err := ports.NewReports(domain.DefaultCatalogue(), fixture.FileRules(), x.store, fakes.NewUploads(x.clock), x.clock,
		ports.ReportsOptions{KeyTTL: 24 * time.Hour, Wait: time.Second, Poll: time.Millisecond, Stale: 4 * time.Second})
	must(t, err)
	queries, err := ports.NewReportQueries(x.store)
	must(t, err)
	rules, err := domain.NewDecisionRules(domain.DefaultReasonCodes)
	must(t, err)
	decisions, err := ports.NewDecisions(x.store, rules, x.clock, func() { x.notified++ })
	must(t, err)
	events, err := ports.NewEvents(x.store, x.clock, listDelay)
	must(t, err)
	endpoints, err := ports.NewWebhookEndpoints(x.store, domain.NewWebhookURLRules([]string{"receiver.test"}), x.clock, 5)
	must(t, err)
	redelivery, err := ports.NewRedelivery(x.store, x.clock, nil)
	must(t, err)
	x.office, err = ports.NewBackoffice(x.store, x.clock)
	must(t, err)
	h.rebuild(t, func(s *Server) {
		s.Reports, s.Validator, s.Lookup = reports, reports, queries
		s.Events, s.Redeliver, s.Endpoints = events, redelivery, endpoints
		s.Decisions, s.Backoffice = decisions, x.office
	})
	ts := httptest.NewServer(h.srv.AdminHandler())
	t.Cleanup(ts.Close)
	x.admin = ts.URL
	return x
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

// report stores a report of acme's (token "good") through POST
// /v1/reports and returns its answer.
func (x *s11) report(t *testing.T, credit string) answer {
	t.Helper()
	body, _ := json.Marshal(fixture.FullV1(x.clock.Now(), credit, nil))
	a := x.do(t, "POST", "/v1/reports", v1Headers, string(body))
	if a.status != 201 {
		t.Fatalf("POST /v1/reports: %d %s", a.status, a.raw)
	}
	return a
}

// adminDo sends a request to the decision API with the back-office
// secret (none when "").
func (x *s11) adminDo(t *testing.T, method, path, secret, body string) answer {
	t.Helper()
	hd := map[string]string{"Content-Type": "application/json"}
	if secret != "" {
		hd["Authorization"] = "Bearer " + secret
	}
	saved := x.url
	x.url = x.admin
	defer func() { x.url = saved }()
	return x.do(t, method, path, hd, body)
}

// backoffice adds a back-office client and returns its secret.
func (x *s11) backoffice(t *testing.T, name string) string {
	t.Helper()
	secret, err := x.office.Add(t.Context(), name)
	must(t, err)
	return secret
}

// problemOf checks that a is a problem of status and code, and that its
// errors[] (when field is not "") names field.
func problemOf(t *testing.T, what string, a answer, status int, code, field string) {
	t.Helper()
	if a.status != status || a.body["code"] != code || a.header.Get("Content-Type") != problemContentType || a.body["status"] != float64(status) {
		t.Fatalf("%s: %d %s, want a %d %s problem", what, a.status, a.raw, status, code)
	}
	if field == "" {
		return
	}
	errs, _ := a.body["errors"].([]any)
	for _, e := range errs {
		if m, _ := e.(map[string]any); m["field"] == field {
			return
		}
	}
	if a.body["detail"] != nil && status == 400 {
		if d, _ := a.body["detail"].(string); strings.Contains(d, field) {
			return
		}
	}
	t.Fatalf("%s: %s does not name %s", what, a.raw, field)
}

// events returns every event of acme's, oldest first, as the store lists
// them (no list delay).
func (x *s11) events(t *testing.T) []domain.Event {
	t.Helper()
	evs, err := x.store.ListEvents(t.Context(), ports.EventFilter{User: "acme", Before: x.clock.Now().Add(time.Hour), Limit: 1000})
	must(t, err)
	return evs
}

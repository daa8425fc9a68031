package httpapi

import (
	"strings"
	"testing"

	"github.com/lender/disbursementd/domain"
)

// TestAdminDecision: the decision API answers 200 with the report's /v1
// receipt, the same decision again 200 and unchanged, a different one
// 409 decision_conflict (the report keeps its decision), an unknown or
// non-canonical id 404; the decision records its back-office client and
// makes one event.
func TestAdminDecision(t *testing.T) {
	x := newS11(t, Limits{})
	bo := x.backoffice(t, "cartera")
	x.report(t, "CR-1")
	a := x.decide(t, bo, 1, acceptBody)
	if a.status != 200 || a.body["status"] != "accepted" || a.body["id"] != float64(1) || a.body["decided_at"] != "2026-11-26T10:00:00.000Z" {
		t.Fatalf("accept: %d %s", a.status, a.raw)
	}
	x.clock.Add(1e9)
	again := x.decide(t, bo, 1, acceptBody)
	if again.status != 200 || string(again.raw) != string(a.raw) {
		t.Fatalf("the same decision again: %d %s, want the first answer %s", again.status, again.raw, a.raw)
	}
	conflict := x.decide(t, bo, 1, rejectBody)
	problemOf(t, "a different decision", conflict, 409, "decision_conflict", "")
	if d, _ := conflict.body["detail"].(string); !strings.Contains(d, "accepted") {
		t.Errorf("the conflict does not say what the report has: %s", conflict.raw)
	}
	problemOf(t, "no report", x.decide(t, bo, 99, acceptBody), 404, "not_found", "")
	problemOf(t, "a non-canonical id", x.adminDo(t, "POST", AdminPrefix+"reports/01/decision", bo, acceptBody), 404, "not_found", "")
	stored, err := x.store.GetReport(t.Context(), "acme", 1)
	if err != nil || stored.Status != domain.StatusAccepted || stored.Decision.By != "backoffice:cartera" {
		t.Fatalf("stored: %+v %v", stored.StoredReceipt, err)
	}
	var types []domain.EventType
	for _, e := range x.events(t) {
		types = append(types, e.Type)
	}
	if len(types) != 2 || types[1] != domain.EventAccepted || x.notified != 1 {
		t.Fatalf("events %v, delivery workers woken %d times, want received, accepted and once", types, x.notified)
	}
}

// TestAdminDecisionBadInput: each mistake in a decision is a 422
// invalid_decision naming its member and saying what to send (the
// configured reason codes, the reason's bounds), or a 400/415 for a body
// that is not one JSON object; none changes the report or makes an
// event.
func TestAdminDecisionBadInput(t *testing.T) {
	x := newS11(t, Limits{})
	bo := x.backoffice(t, "cartera")
	x.report(t, "CR-1")
	for _, tt := range []struct {
		name, body, ctype string
		status            int
		code, field, says string
	}{
		{"another decision word", `{"decision":"approved"}`, "", 422, "invalid_decision", "decision", "accepted o rejected"},
		{"no decision", `{}`, "", 422, "invalid_decision", "decision", "accepted o rejected"},
		{"an unknown reason code", `{"decision":"rejected","reason_code":"caro","reason":"x"}`, "", 422, "invalid_decision", "reason_code", "monto_no_coincide"},
		{"a rejection without code", `{"decision":"rejected","reason":"x"}`, "", 422, "invalid_decision", "reason_code", "obligatorio"},
		{"an empty reason", `{"decision":"rejected","reason_code":"otro","reason":" "}`, "", 422, "invalid_decision", "reason", "obligatorio"},
		{"a reason over 500 characters", `{"decision":"rejected","reason_code":"otro","reason":"` + strings.Repeat("ñ", 501) + `"}`, "", 422, "invalid_decision", "reason", "500"},
		{"a reason with accepted", `{"decision":"accepted","reason":"bien"}`, "", 422, "invalid_decision", "reason", "rejected"},
		{"an unknown member", `{"decision":"accepted","by":"me"}`, "", 422, "invalid_decision", "by", "decision, reason_code o reason"},
		{"reason not text", `{"decision":"rejected","reason_code":"otro","reason":5}`, "", 422, "invalid_decision", "reason", "texto"},
		{"not JSON", `decision=accepted`, "", 400, "invalid_json", "", "JSON"},
		{"a form", `decision=accepted`, "application/x-www-form-urlencoded", 415, "unsupported_media_type", "", "application/json"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			h := map[string]string{"Authorization": "Bearer " + bo, "Content-Type": "application/json"}
			if tt.ctype != "" {
				h["Content-Type"] = tt.ctype
			}
			saved := x.url
			x.url = x.admin
			a := x.do(t, "POST", AdminPrefix+"reports/1/decision", h, tt.body)
			x.url = saved
			problemOf(t, tt.name, a, tt.status, tt.code, tt.field)
			if !strings.Contains(string(a.raw), tt.says) {
				t.Errorf("%s does not say %q", a.raw, tt.says)
			}
		})
	}
	if r, _ := x.store.GetReport(t.Context(), "acme", 1); r.Status != domain.StatusReceived || len(x.events(t)) != 1 {
		t.Fatalf("refused decisions changed the report (%s) or made events (%d)", r.Status, len(x.events(t)))
	}
}

// TestAdminRefusesPartnerTokens: the decision API takes back-office
// secrets only: a valid partner token is 401 (with the admin realm), as
// no token, a removed client's secret and a made-up one are; a partner's
// listener has no such route (404).
func TestAdminRefusesPartnerTokens(t *testing.T) {
	x := newS11(t, Limits{})
	x.report(t, "CR-1")
	gone := x.backoffice(t, "temporal")
	must(t, x.office.Remove(t.Context(), "temporal"))
	for _, tt := range []struct{ name, secret, challenge string }{
		{"a valid partner token", "good", challengeAdmin + `, error="invalid_token"`},
		{"no token", "", challengeAdmin},
		{"a removed client's secret", gone, challengeAdmin + `, error="invalid_token"`},
		{"a made-up secret", "bo_" + strings.Repeat("A", 43), challengeAdmin + `, error="invalid_token"`},
	} {
		a := x.decide(t, tt.secret, 1, acceptBody)
		problemOf(t, tt.name, a, 401, "invalid_token", "")
		if a.header.Get("WWW-Authenticate") != tt.challenge {
			t.Errorf("%s: challenge %q, want %q", tt.name, a.header.Get("WWW-Authenticate"), tt.challenge)
		}
	}
	if strings.Contains(x.logText(), gone) {
		t.Error("a secret was logged")
	}
	bo := x.backoffice(t, "cartera")
	on := x.do(t, "POST", AdminPrefix+"reports/1/decision", map[string]string{"Authorization": "Bearer " + bo, "Content-Type": "application/json"}, acceptBody)
	if on.status != 404 {
		t.Fatalf("the decision API on the partners' listener: %d %s, want 404", on.status, on.raw)
	}
	if r, _ := x.store.GetReport(t.Context(), "acme", 1); r.Status != domain.StatusReceived {
		t.Fatalf("the report was decided: %s", r.Status)
	}
	if a := x.adminDo(t, "GET", AdminPrefix+"reports/1/decision", bo, ""); a.status != 405 || a.header.Get("Allow") != "OPTIONS, POST" {
		t.Errorf("GET of the decision: %d Allow %q", a.status, a.header.Get("Allow"))
	}
	if a := x.adminDo(t, "GET", "/v1/reports", bo, ""); a.status != 404 {
		t.Errorf("the partner API on the internal listener: %d", a.status)
	}
}

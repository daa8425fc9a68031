package httpapi

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
)

// decide makes a decision on report id through the decision API.
func (x *s11) decide(t *testing.T, secret string, id float64, body string) answer {
	t.Helper()
	return x.adminDo(t, "POST", AdminPrefix+"reports/"+itoa(int64(id))+"/decision", secret, body)
}

const (
	acceptBody = `{"decision":"accepted"}`
	rejectBody = `{"decision":"rejected","reason_code":"monto_no_coincide","reason":"El monto no coincide con el pagaré"}`
)

// TestV1ReceiptsShowStatusAndDecision: a /v1 receipt has status
// received when stored (POST's answer), and once decided decided_at,
// with reason_code and reason when rejected, in GET /v1/reports/{id} and
// in the list; ?status= lists the reports in that state only.
func TestV1ReceiptsShowStatusAndDecision(t *testing.T) {
	x := newS11(t, Limits{})
	bo := x.backoffice(t, "cartera")
	first, second := x.report(t, "CR-1"), x.report(t, "CR-2")
	if first.body["status"] != "received" || first.body["decided_at"] != nil || first.body["reason_code"] != nil || first.body["reason"] != nil {
		t.Fatalf("POST answer: %s, want status received and no decision members", first.raw)
	}
	x.clock.Add(time.Minute)
	if a := x.decide(t, bo, first.body["id"].(float64), rejectBody); a.status != 200 {
		t.Fatalf("reject: %d %s", a.status, a.raw)
	}
	if a := x.decide(t, bo, second.body["id"].(float64), acceptBody); a.status != 200 {
		t.Fatalf("accept: %d %s", a.status, a.raw)
	}
	got := x.do(t, "GET", "/v1/reports/1", v1Headers, "")
	if got.body["status"] != "rejected" || got.body["decided_at"] != "2026-11-26T10:01:00.000Z" ||
		got.body["reason_code"] != "monto_no_coincide" || got.body["reason"] != "El monto no coincide con el pagaré" || got.body["fields"] == nil {
		t.Fatalf("GET of a rejected report: %s", got.raw)
	}
	got = x.do(t, "GET", "/v1/reports/2", v1Headers, "")
	if got.body["status"] != "accepted" || got.body["decided_at"] != "2026-11-26T10:01:00.000Z" || got.body["reason_code"] != nil || got.body["reason"] != nil {
		t.Fatalf("GET of an accepted report: %s", got.raw)
	}
	for status, want := range map[string][]float64{"rejected": {1}, "accepted": {2}, "received": nil} {
		a := x.do(t, "GET", "/v1/reports?status="+status, v1Headers, "")
		data, _ := a.body["data"].([]any)
		if a.status != 200 || len(data) != len(want) {
			t.Fatalf("?status=%s: %d %s", status, a.status, a.raw)
		}
		for i, d := range data {
			if m := d.(map[string]any); m["id"] != want[i] || m["status"] != status {
				t.Errorf("?status=%s: entry %v", status, m)
			}
		}
	}
	problemOf(t, "?status=pending", x.do(t, "GET", "/v1/reports?status=pending", v1Headers, ""), 400, "invalid_request", "status")
}

// TestLegacyAnswerUnchangedBySection11: the legacy POST's answer is the
// same bytes it always was (no status member, no event in it).
func TestLegacyAnswerUnchangedBySection11(t *testing.T) {
	x := newS11(t, Limits{})
	body, _ := json.Marshal(fixture.FullBody(x.clock.Now(), "CR-9", nil))
	a := x.do(t, "POST", PartnerPath, reportHeaders, string(body))
	if a.status != 200 || string(a.raw) != `{"status":"200","message":"Datos ingresados exitosamente!","id":1}`+"\n" {
		t.Fatalf("legacy answer: %d %q", a.status, a.raw)
	}
}

// TestV1EventsListOwnEventsOldestFirst: a partner lists its own events
// (a stored report's report.received, a decision's report.accepted or
// report.rejected), oldest first, each with its report's receipt at that
// moment; another partner's events are never listed; an event younger
// than events.list_delay is not listed yet.
func TestV1EventsListOwnEventsOldestFirst(t *testing.T) {
	x := newS11(t, Limits{})
	bo := x.backoffice(t, "cartera")
	x.report(t, "CR-1")
	x.clock.Add(time.Second)
	beta := map[string]string{"Authorization": "Bearer good-beta", "Content-Type": "application/json"}
	body, _ := json.Marshal(fixture.FullV1(x.clock.Now(), "CR-2", nil))
	if a := x.do(t, "POST", "/v1/reports", beta, string(body)); a.status != 201 {
		t.Fatalf("beta's report: %d %s", a.status, a.raw)
	}
	x.clock.Add(time.Second)
	x.decide(t, bo, 1, rejectBody)
	if a := x.do(t, "GET", "/v1/events", v1Headers, ""); a.status != 200 || len(a.body["data"].([]any)) != 0 {
		t.Fatalf("events younger than the list delay: %d %s", a.status, a.raw)
	}
	x.clock.Add(listDelay + time.Millisecond)
	a := x.do(t, "GET", "/v1/events", v1Headers, "")
	data, _ := a.body["data"].([]any)
	if a.status != 200 || len(data) != 2 || a.body["next_cursor"] != nil {
		t.Fatalf("acme's events: %d %s", a.status, a.raw)
	}
	received, rejected := data[0].(map[string]any), data[1].(map[string]any)
	if received["type"] != "report.received" || received["created_at"] != "2026-11-26T10:00:00.000Z" ||
		received["data"].(map[string]any)["status"] != "received" || received["data"].(map[string]any)["reason"] != nil {
		t.Errorf("first event: %v", received)
	}
	if rejected["type"] != "report.rejected" || rejected["created_at"] != "2026-11-26T10:00:02.000Z" ||
		rejected["data"].(map[string]any)["reason_code"] != "monto_no_coincide" || !strings.HasPrefix(rejected["id"].(string), "evt_") {
		t.Errorf("second event: %v", rejected)
	}
	b := x.do(t, "GET", "/v1/events", beta, "")
	if bd, _ := b.body["data"].([]any); len(bd) != 1 || bd[0].(map[string]any)["data"].(map[string]any)["numero_credito"] != "CR-2" {
		t.Fatalf("beta's events: %s", b.raw)
	}
}

// TestV1EventsQuery: type filters (repeated for several), limit pages
// with next_cursor (null on the last page), an event's id reads on after
// it; each bad parameter is a 400 naming it and saying what to send.
func TestV1EventsQuery(t *testing.T) {
	x := newS11(t, Limits{})
	bo := x.backoffice(t, "cartera")
	for _, c := range []string{"CR-1", "CR-2", "CR-3"} {
		x.report(t, c)
		x.clock.Add(time.Millisecond)
	}
	x.decide(t, bo, 1, acceptBody)
	x.decide(t, bo, 2, rejectBody)
	x.clock.Add(listDelay + time.Millisecond)
	types := func(a answer) []string {
		var out []string
		for _, d := range a.body["data"].([]any) {
			out = append(out, d.(map[string]any)["type"].(string))
		}
		return out
	}
	if got := types(x.do(t, "GET", "/v1/events?type=report.rejected", v1Headers, "")); strings.Join(got, " ") != "report.rejected" {
		t.Errorf("type=report.rejected: %v", got)
	}
	if got := types(x.do(t, "GET", "/v1/events?type=report.rejected&type=report.accepted", v1Headers, "")); strings.Join(got, " ") != "report.accepted report.rejected" {
		t.Errorf("two types: %v", got)
	}
	var seen []string
	path := "/v1/events?limit=2"
	for pages := 0; ; pages++ {
		a := x.do(t, "GET", path, v1Headers, "")
		for _, d := range a.body["data"].([]any) {
			seen = append(seen, d.(map[string]any)["id"].(string))
		}
		next, _ := a.body["next_cursor"].(string)
		if next == "" || pages > 5 {
			break
		}
		path = "/v1/events?limit=2&cursor=" + url.QueryEscape(next)
	}
	if len(seen) != 5 {
		t.Fatalf("pages of 2: %d events, want 5", len(seen))
	}
	after := x.do(t, "GET", "/v1/events?cursor="+seen[2], v1Headers, "")
	if d := after.body["data"].([]any); len(d) != 2 || d[0].(map[string]any)["id"] != seen[3] {
		t.Errorf("cursor = the third event's id: %s", after.raw)
	}
	for _, tt := range []struct{ query, param, says string }{
		{"type=report.paid", "type", "report.received"},
		{"type=report.accepted,report.rejected", "type", "repita type"},
		{"limit=0", "limit", "500"},
		{"limit=501", "limit", "500"},
		{"cursor=abc", "cursor", "next_cursor"},
		{"types=report.accepted", "types", "type, limit o cursor"},
		{"limit=1&limit=2", "limit", "más de una vez"},
		{"type=", "type", "sin valor"},
	} {
		a := x.do(t, "GET", "/v1/events?"+tt.query, v1Headers, "")
		problemOf(t, tt.query, a, 400, "invalid_request", tt.param)
		if d, _ := a.body["detail"].(string); !strings.Contains(d, tt.says) {
			t.Errorf("%s: %q does not say %q", tt.query, d, tt.says)
		}
	}
}

// TestV1EventGetIsThePartners: GET /v1/events/{id} shows the partner's
// own event as the list does; another partner's event, an id that is not
// an event's and one edited by a digit are 404.
func TestV1EventGetIsThePartners(t *testing.T) {
	x := newS11(t, Limits{})
	x.report(t, "CR-1")
	x.clock.Add(listDelay + time.Millisecond)
	list := x.do(t, "GET", "/v1/events", v1Headers, "")
	item := list.body["data"].([]any)[0].(map[string]any)
	id := item["id"].(string)
	a := x.do(t, "GET", "/v1/events/"+id, v1Headers, "")
	if a.status != 200 || a.body["id"] != id || a.body["type"] != "report.received" {
		t.Fatalf("GET own event: %d %s", a.status, a.raw)
	}
	beta := map[string]string{"Authorization": "Bearer good-beta"}
	problemOf(t, "another partner's event", x.do(t, "GET", "/v1/events/"+id, beta, ""), 404, "not_found", "")
	problemOf(t, "not an event id", x.do(t, "GET", "/v1/events/42", v1Headers, ""), 404, "not_found", "")
	edited := id[:len(id)-1] + "2"
	problemOf(t, "an edited id", x.do(t, "GET", "/v1/events/"+edited, v1Headers, ""), 404, "not_found", "")
}

// TestEventDataIsTheReceiptBytes: a webhook's body and a /v1/events
// entry carry the same bytes as data, and they are the bytes of the
// report's /v1 receipt (without fields) at that moment.
func TestEventDataIsTheReceiptBytes(t *testing.T) {
	x := newS11(t, Limits{})
	x.report(t, "CR-1")
	x.decide(t, x.backoffice(t, "cartera"), 1, rejectBody)
	x.clock.Add(listDelay + time.Millisecond)
	var page struct {
		Data []struct {
			ID   string          `json:"id"`
			Data json.RawMessage `json:"data"`
		} `json:"data"`
	}
	must(t, json.Unmarshal(x.do(t, "GET", "/v1/events", v1Headers, "").raw, &page))
	events := x.events(t)
	if len(page.Data) != 2 || len(events) != 2 {
		t.Fatalf("%d listed, %d stored", len(page.Data), len(events))
	}
	for i, e := range events {
		body, err := EventJSON{}.WebhookBody(e)
		must(t, err)
		var hook struct {
			Type      string          `json:"type"`
			Timestamp string          `json:"timestamp"`
			Data      json.RawMessage `json:"data"`
		}
		must(t, json.Unmarshal(body, &hook))
		if string(hook.Data) != string(page.Data[i].Data) || hook.Type != string(e.Type) || hook.Timestamp != domain.ReceiptTime(e.CreatedAt) {
			t.Errorf("event %s: webhook %s, list data %s", e.ID(), body, page.Data[i].Data)
		}
		receipt, _ := json.Marshal(receiptOf(e.Receipt))
		if string(hook.Data) != string(receipt) {
			t.Errorf("event %s: data %s, receipt %s", e.ID(), hook.Data, receipt)
		}
	}
	if !strings.Contains(string(page.Data[0].Data), `"status":"received"`) || strings.Contains(string(page.Data[0].Data), "reason") {
		t.Errorf("report.received's data shows the decision made after it: %s", page.Data[0].Data)
	}
}

// TestV1EventsShareTheLookupRate: event look-ups take the partner's
// look-up rate as report look-ups do (one bucket for both), and another
// partner's stays whole.
func TestV1EventsShareTheLookupRate(t *testing.T) {
	x := newS11(t, Limits{LookupRatePerPartner: 2})
	x.srv.lookRate.maxWait = 0
	for _, p := range []string{"/v1/reports", "/v1/events"} {
		if a := x.do(t, "GET", p, v1Headers, ""); a.status != 200 {
			t.Fatalf("GET %s: %d %s", p, a.status, a.raw)
		}
	}
	for _, p := range []string{"/v1/events", "/v1/webhook_endpoints", "/v1/events/evt_x"} {
		a := x.do(t, "GET", p, v1Headers, "")
		problemOf(t, p+" past the rate", a, 429, "slow_down", "")
		if a.header.Get("Retry-After") == "" {
			t.Errorf("%s: 429 without Retry-After", p)
		}
	}
	if a := x.do(t, "GET", "/v1/events", map[string]string{"Authorization": "Bearer good-beta"}, ""); a.status != 200 {
		t.Fatalf("another partner: %d %s", a.status, a.raw)
	}
}

// TestV1RedeliverEvent: POST /v1/events/{id}/redeliver makes the
// partner's event due for each of its enabled endpoints that takes its
// type (202 {"deliveries": n}); another partner's event is 404 and makes
// nothing due.
func TestV1RedeliverEvent(t *testing.T) {
	x := newS11(t, Limits{})
	for _, body := range []string{`{"url":"https://receiver.test/a"}`, `{"url":"https://receiver.test/b","event_types":["report.accepted"]}`} {
		if a := x.do(t, "POST", "/v1/webhook_endpoints", v1Headers, body); a.status != 201 {
			t.Fatalf("endpoint: %d %s", a.status, a.raw)
		}
	}
	x.report(t, "CR-1")
	x.clock.Add(listDelay + time.Millisecond)
	id := x.do(t, "GET", "/v1/events", v1Headers, "").body["data"].([]any)[0].(map[string]any)["id"].(string)
	a := x.do(t, "POST", "/v1/events/"+id+"/redeliver", v1Headers, "")
	if a.status != 202 || string(a.raw) != `{"deliveries":1}`+"\n" {
		t.Fatalf("redeliver: %d %s", a.status, a.raw)
	}
	problemOf(t, "another partner's event", x.do(t, "POST", "/v1/events/"+id+"/redeliver", map[string]string{"Authorization": "Bearer good-beta"}, ""), 404, "not_found", "")
	problemOf(t, "no event", x.do(t, "POST", "/v1/events/evt_0/redeliver", v1Headers, ""), 404, "not_found", "")
	due, err := x.store.Due(t.Context(), x.clock.Now(), 10, nil, nil, time.Time{})
	must(t, err)
	if len(due) != 1 {
		t.Fatalf("made due: %v", due)
	}
	d, err := x.store.Load(t.Context(), due[0].ID)
	if err != nil || d.Event.ID() != id || d.Endpoint.URL != "https://receiver.test/a" {
		t.Fatalf("the delivery made due: %+v %v", d, err)
	}
}

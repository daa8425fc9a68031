package e2e

import (
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// lookups is what the look-up rules share, in order: the /v1 instance,
// the day its reports were sent, and acme's reports as they arrived (the
// first rule sends them, the rules after it look them up).
type lookups struct {
	*v1Env
	today time.Time
	mine  []int64
}

// v1LookupRules: GET /v1/reports/{id} and GET /v1/reports, each rule a
// named testX function, in order on one set of reports.
func v1LookupRules(t *testing.T, e *v1Env) {
	h := &lookups{v1Env: e, today: time.Now().UTC()}
	for _, r := range []struct {
		name string
		run  func(*testing.T, *lookups)
	}{
		{"look-ups: reports to look up", testLookupsStored},
		{"get: only the partner that sent a report sees it; any other id is 404 not_found", testGetOwnOnly},
		{"list: the partner's own receipts in the order received, by filter", testListOwnByFilter},
		{"list: pages of limit receipts, the cursor of each leading to the next, null on the last", testListPages},
		{"list: paging to the end while reports arrive sees each report once", testListWhileArriving},
		{"list: a cursor of the earlier id order is 400 saying to start again", testListOldCursor},
		{"list: a bad or unknown parameter is 400 invalid_request naming it", testListBadParameter},
		{"lookups past the partner's rate: 429 slow_down with Retry-After, another partner served", testLookupRate},
	} {
		t.Run(r.name, func(t *testing.T) { r.run(t, h) })
	}
}

// send sends a report of credit with tok (and the Idempotency-Key key,
// if any) through POST /v1/reports and returns its id.
func (h *lookups) send(t *testing.T, tok, credit, key string) int64 {
	t.Helper()
	r := h.post(t, "/v1/reports", tok, testkit.MustJSON(fixture.Minimal(h.today, credit)), "Idempotency-Key", key)
	if r.Status != http.StatusCreated {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	return int64(r.Body["id"].(float64))
}

// list returns the ids of every page of a query, following next_cursor,
// and the number of pages.
func (h *lookups) list(t *testing.T, tok, query string) ([]int64, int) {
	t.Helper()
	var ids []int64
	pages := 0
	for next := ""; ; pages++ {
		q := query
		if next != "" {
			q += "&cursor=" + url.QueryEscape(next)
		}
		r := h.get(t, "/v1/reports?"+strings.TrimPrefix(q, "&"), tok)
		if r.Status != http.StatusOK {
			t.Fatalf("%s: %d %s", q, r.Status, r.Raw)
		}
		for _, x := range r.Body["data"].([]any) {
			ids = append(ids, int64(x.(map[string]any)["id"].(float64)))
		}
		c, more := r.Body["next_cursor"].(string)
		if !more {
			if r.Body["next_cursor"] != nil {
				t.Fatalf("next_cursor %v", r.Body["next_cursor"])
			}
			return ids, pages + 1
		}
		next = c
	}
}

// testLookupsStored: look-ups: reports to look up.
func testLookupsStored(t *testing.T, h *lookups) {
	h.mine = append(h.mine, h.send(t, h.acme, "CR-LIST-A", "list-1"))
	h.send(t, h.globex, "CR-LIST-A", "list-1")
	h.mine = append(h.mine, h.send(t, h.acme, "CR-LIST-B", ""))
	legacy := h.in.Report(t, h.legacyAcmeTok, testkit.MustJSON(fixture.Minimal(h.today, "CR-LIST-A")), "Idempotency-Key", "list-legacy")
	if legacy.Status != http.StatusOK {
		t.Fatalf("%d %s", legacy.Status, legacy.Raw)
	}
	h.mine = append(h.mine, int64(legacy.Body["id"].(float64)))
	h.send(t, h.globex, "CR-LIST-C", "")
	h.mine = append(h.mine, h.send(t, h.acme, "CR-LIST-A", "list-3"))
}

// testGetOwnOnly: get: only the partner that sent a report sees it; any other id is 404 not_found.
func testGetOwnOnly(t *testing.T, h *lookups) {
	if r := h.get(t, fmt.Sprintf("/v1/reports/%d", h.mine[0]), h.acme); r.Status != http.StatusOK || r.Body["numero_credito"] != "CR-LIST-A" {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	other := h.get(t, fmt.Sprintf("/v1/reports/%d", h.mine[0]), h.globex)
	mustProblem(t, other, 404, "not_found")
	for _, id := range []string{"999999999", "0", "-1", "abc", "1.5", "99999999999999999999"} {
		mustProblem(t, h.get(t, "/v1/reports/"+id, h.acme), 404, "not_found")
	}
	missing := h.get(t, "/v1/reports/999999999", h.acme)
	if other.Body["detail"] != missing.Body["detail"] {
		t.Fatalf("another partner's report (%s) and no report (%s) answer differently", other.Raw, missing.Raw)
	}
}

// testListOwnByFilter: list: the partner's own receipts in the order received, by filter.
func testListOwnByFilter(t *testing.T, h *lookups) {
	all, _ := h.list(t, h.acme, "received_from="+h.today.Format("2006-01-02"))
	if !containsInOrder(all, h.mine) {
		t.Fatalf("all of h.today: %v, want %v among them, in order", all, h.mine)
	}
	for _, id := range all {
		if r := h.get(t, fmt.Sprintf("/v1/reports/%d", id), h.acme); r.Status != http.StatusOK {
			t.Fatalf("listed %d, which is not acme's: %d", id, r.Status)
		}
	}
	for _, tt := range []struct {
		query string
		want  []int64
	}{
		{"numero_credito=CR-LIST-A&received_from=" + h.today.Format("2006-01-02"), []int64{h.mine[0], h.mine[2], h.mine[3]}},
		{"numero_credito=CR-LIST-B", []int64{h.mine[1]}},
		{"idempotency_key=list-1", []int64{h.mine[0]}},
		{"idempotency_key=list-legacy", []int64{h.mine[2]}},
		{"numero_credito=CR-LIST-C", nil},
		{"received_to=" + h.today.Format("2006-01-02"), nil},
		{"received_from=" + h.today.AddDate(0, 0, 1).Format("2006-01-02"), nil},
		{"numero_credito=CR-LIST-A&received_from=" + url.QueryEscape(h.today.Add(-time.Hour).Format(time.RFC3339)) +
			"&received_to=" + url.QueryEscape(h.today.Add(time.Hour).Format(time.RFC3339)), []int64{h.mine[0], h.mine[2], h.mine[3]}},
	} {
		if got, _ := h.list(t, h.acme, tt.query); fmt.Sprint(got) != fmt.Sprint(tt.want) {
			t.Errorf("%s: %v, want %v", tt.query, got, tt.want)
		}
	}
}

// testListPages: list: pages of limit receipts, the cursor of each leading to the next, null on the last.
func testListPages(t *testing.T, h *lookups) {
	whole, _ := h.list(t, h.acme, "numero_credito=CR-LIST-A&limit=500")
	paged, pages := h.list(t, h.acme, "numero_credito=CR-LIST-A&limit=1")
	if fmt.Sprint(whole) != fmt.Sprint(paged) || pages != len(whole) || len(whole) != 3 {
		t.Fatalf("limit 500: %v; limit 1: %v in %d pages", whole, paged, pages)
	}
	if _, pages := h.list(t, h.acme, "numero_credito=CR-LIST-A&limit=3"); pages != 1 {
		t.Fatalf("a page that holds the last receipt has a next_cursor (%d pages)", pages)
	}
}

// testListWhileArriving: list: paging to the end while reports arrive sees each report once.
func testListWhileArriving(t *testing.T, h *lookups) {
	before, _ := h.list(t, h.acme, "numero_credito=CR-LIST-A&limit=500")
	var seen, added []int64
	q := "numero_credito=CR-LIST-A&limit=1"
	for next := ""; ; {
		page := h.get(t, "/v1/reports?"+q+next, h.acme)
		if page.Status != http.StatusOK {
			t.Fatalf("%d %s", page.Status, page.Raw)
		}
		for _, x := range page.Body["data"].([]any) {
			seen = append(seen, int64(x.(map[string]any)["id"].(float64)))
		}
		c, more := page.Body["next_cursor"].(string)
		if !more {
			break
		}
		next = "&cursor=" + url.QueryEscape(c)
		if len(added) < 3 {
			// Another report of the credit (its own term), arriving now.
			body := fixture.Minimal(h.today, "CR-LIST-A")
			body["Plazo (meses)"] = 40 + len(added)
			r := h.post(t, "/v1/reports", h.acme, testkit.MustJSON(body))
			if r.Status != http.StatusCreated {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			added = append(added, int64(r.Body["id"].(float64)))
		}
	}
	if want := append(append([]int64{}, before...), added...); fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Fatalf("pages while reports arrived: %v, want %v", seen, want)
	}
	h.mine = append(h.mine, added...)
}

// testListOldCursor: list: a cursor of the earlier id order is 400 saying to start again.
func testListOldCursor(t *testing.T, h *lookups) {
	r := h.get(t, "/v1/reports?cursor=MTA", h.acme) // base64url of "10"
	mustProblem(t, r, 400, "invalid_request")
	if !strings.Contains(fmt.Sprint(r.Body["detail"]), "primera página") {
		t.Errorf("detail %q does not say to ask for the first page", r.Body["detail"])
	}
}

// testListBadParameter: list: a bad or unknown parameter is 400 invalid_request naming it.
func testListBadParameter(t *testing.T, h *lookups) {
	for query, name := range map[string]string{
		"limit=0": "limit", "limit=501": "limit", "limit=ten": "limit", "limit=-1": "limit",
		"received_from=yesterday": "received_from", "received_to=2026-02-30": "received_to",
		"cursor=xyz": "cursor", "cursor=" + url.QueryEscape("MTA="): "cursor",
		"numero_credito=a%2Fb": "numero_credito", "numero_credito=": "numero_credito",
		"credit=CR-1": "credit", "limit=1&limit=2": "limit", "idempotency_key=" + strings.Repeat("k", 256): "idempotency_key",
	} {
		r := h.get(t, "/v1/reports?"+query, h.acme)
		mustProblem(t, r, 400, "invalid_request")
		if !strings.Contains(fmt.Sprint(r.Body["detail"]), name) {
			t.Errorf("%s: detail %q does not name %s", query, r.Body["detail"], name)
		}
	}
}

// testLookupRate: lookups past the partner's rate: 429 slow_down with Retry-After, another partner served.
func testLookupRate(t *testing.T, h *lookups) {
	in := testkit.MustStart(t, h.store(t), func(c *config.Config) { c.HTTP.LookupRatePerPartner = 2 })
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	in.AddUser(t, testkit.OtherPartner, "900765432", testkit.OtherPassword)
	acme, globex := in.Token(t, testkit.Partner, testkit.Password), in.Token(t, testkit.OtherPartner, testkit.OtherPassword)
	get := func(tok, path string) testkit.Reply {
		return testkit.Call(t, http.MethodGet, in.URL+path, map[string]string{"Authorization": "Bearer " + tok}, nil)
	}
	// A burst of 2 at 2 a second, and turns within the next second
	// waited for: of 10 look-ups at once, some are past that.
	var r testkit.Reply
	for round := 0; round < 5 && r.Status != http.StatusTooManyRequests; round++ {
		replies := make(chan testkit.Reply, 10)
		for range 10 {
			go func() {
				var got testkit.Reply // sent even if get ends this goroutine with t.Fatal
				defer func() { replies <- got }()
				got = get(acme, "/v1/reports/1")
			}()
		}
		for range 10 {
			got := <-replies
			switch got.Status {
			case http.StatusTooManyRequests:
				r = got
			case http.StatusNotFound:
			default:
				t.Fatalf("a look-up: %d %s", got.Status, got.Raw)
			}
		}
	}
	mustProblem(t, r, http.StatusTooManyRequests, "slow_down")
	wait, err := strconv.Atoi(r.Header.Get("Retry-After"))
	if err != nil || wait < 1 {
		t.Fatalf("Retry-After %q, want whole seconds, at least 1", r.Header.Get("Retry-After"))
	}
	if r := get(globex, "/v1/reports"); r.Status != http.StatusOK {
		t.Fatalf("another partner's look-up: %d %s", r.Status, r.Raw)
	}
	time.Sleep(time.Duration(wait) * time.Second)
	if r := get(acme, "/v1/reports"); r.Status != http.StatusOK {
		t.Fatalf("a look-up after Retry-After: %d %s", r.Status, r.Raw)
	}
}

// containsInOrder reports whether every id of want is in got, in the
// same order.
func containsInOrder(got, want []int64) bool {
	i := 0
	for _, g := range got {
		if i < len(want) && g == want[i] {
			i++
		}
	}
	return i == len(want)
}

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

// v1LookupRules: GET /v1/reports/{id} and GET /v1/reports.
func v1LookupRules(t *testing.T, e *v1Env) {
	today := time.Now().UTC()
	// Reports of both partners, some keyed, one through the legacy path.
	store := func(t *testing.T, tok, credit, key string) int64 {
		t.Helper()
		r := e.post(t, "/v1/reports", tok, testkit.MustJSON(fixture.Minimal(today, credit)), "Idempotency-Key", key)
		if r.Status != http.StatusCreated {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		return int64(r.Body["id"].(float64))
	}
	var mine []int64
	t.Run("look-ups: reports to look up", func(t *testing.T) {
		mine = append(mine, store(t, e.acme, "CR-LIST-A", "list-1"))
		store(t, e.globex, "CR-LIST-A", "list-1")
		mine = append(mine, store(t, e.acme, "CR-LIST-B", ""))
		legacy := e.in.Report(t, e.legacyAcmeTok, testkit.MustJSON(fixture.Minimal(today, "CR-LIST-A")), "Idempotency-Key", "list-legacy")
		if legacy.Status != http.StatusOK {
			t.Fatalf("%d %s", legacy.Status, legacy.Raw)
		}
		mine = append(mine, int64(legacy.Body["id"].(float64)))
		store(t, e.globex, "CR-LIST-C", "")
		mine = append(mine, store(t, e.acme, "CR-LIST-A", "list-3"))
	})

	t.Run("get: only the partner that sent a report sees it; any other id is 404 not_found", func(t *testing.T) {
		if r := e.get(t, fmt.Sprintf("/v1/reports/%d", mine[0]), e.acme); r.Status != http.StatusOK || r.Body["numero_credito"] != "CR-LIST-A" {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		other := e.get(t, fmt.Sprintf("/v1/reports/%d", mine[0]), e.globex)
		mustProblem(t, other, 404, "not_found")
		for _, id := range []string{"999999999", "0", "-1", "abc", "1.5", "99999999999999999999"} {
			mustProblem(t, e.get(t, "/v1/reports/"+id, e.acme), 404, "not_found")
		}
		missing := e.get(t, "/v1/reports/999999999", e.acme)
		if other.Body["detail"] != missing.Body["detail"] {
			t.Fatalf("another partner's report (%s) and no report (%s) answer differently", other.Raw, missing.Raw)
		}
	})

	// list returns the ids of every page of a query, following next_cursor.
	list := func(t *testing.T, tok, query string) ([]int64, int) {
		t.Helper()
		var ids []int64
		pages := 0
		for next := ""; ; pages++ {
			q := query
			if next != "" {
				q += "&cursor=" + url.QueryEscape(next)
			}
			r := e.get(t, "/v1/reports?"+strings.TrimPrefix(q, "&"), tok)
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
	t.Run("list: the partner's own receipts in the order received, by filter", func(t *testing.T) {
		all, _ := list(t, e.acme, "received_from="+today.Format("2006-01-02"))
		if !containsInOrder(all, mine) {
			t.Fatalf("all of today: %v, want %v among them, in order", all, mine)
		}
		for _, id := range all {
			if r := e.get(t, fmt.Sprintf("/v1/reports/%d", id), e.acme); r.Status != http.StatusOK {
				t.Fatalf("listed %d, which is not acme's: %d", id, r.Status)
			}
		}
		for _, tt := range []struct {
			query string
			want  []int64
		}{
			{"numero_credito=CR-LIST-A&received_from=" + today.Format("2006-01-02"), []int64{mine[0], mine[2], mine[3]}},
			{"numero_credito=CR-LIST-B", []int64{mine[1]}},
			{"idempotency_key=list-1", []int64{mine[0]}},
			{"idempotency_key=list-legacy", []int64{mine[2]}},
			{"numero_credito=CR-LIST-C", nil},
			{"received_to=" + today.Format("2006-01-02"), nil},
			{"received_from=" + today.AddDate(0, 0, 1).Format("2006-01-02"), nil},
			{"numero_credito=CR-LIST-A&received_from=" + url.QueryEscape(today.Add(-time.Hour).Format(time.RFC3339)) +
				"&received_to=" + url.QueryEscape(today.Add(time.Hour).Format(time.RFC3339)), []int64{mine[0], mine[2], mine[3]}},
		} {
			if got, _ := list(t, e.acme, tt.query); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Errorf("%s: %v, want %v", tt.query, got, tt.want)
			}
		}
	})
	t.Run("list: pages of limit receipts, the cursor of each leading to the next, null on the last", func(t *testing.T) {
		whole, _ := list(t, e.acme, "numero_credito=CR-LIST-A&limit=500")
		paged, pages := list(t, e.acme, "numero_credito=CR-LIST-A&limit=1")
		if fmt.Sprint(whole) != fmt.Sprint(paged) || pages != len(whole) || len(whole) != 3 {
			t.Fatalf("limit 500: %v; limit 1: %v in %d pages", whole, paged, pages)
		}
		if _, pages := list(t, e.acme, "numero_credito=CR-LIST-A&limit=3"); pages != 1 {
			t.Fatalf("a page that holds the last receipt has a next_cursor (%d pages)", pages)
		}
	})
	t.Run("list: paging to the end while reports arrive sees each report once", func(t *testing.T) {
		before, _ := list(t, e.acme, "numero_credito=CR-LIST-A&limit=500")
		var seen, added []int64
		q := "numero_credito=CR-LIST-A&limit=1"
		for next := ""; ; {
			page := e.get(t, "/v1/reports?"+q+next, e.acme)
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
				body := fixture.Minimal(today, "CR-LIST-A")
				body["Plazo (meses)"] = 40 + len(added)
				r := e.post(t, "/v1/reports", e.acme, testkit.MustJSON(body))
				if r.Status != http.StatusCreated {
					t.Fatalf("%d %s", r.Status, r.Raw)
				}
				added = append(added, int64(r.Body["id"].(float64)))
			}
		}
		if want := append(append([]int64{}, before...), added...); fmt.Sprint(seen) != fmt.Sprint(want) {
			t.Fatalf("pages while reports arrived: %v, want %v", seen, want)
		}
		mine = append(mine, added...)
	})
	t.Run("list: a cursor of the earlier id order is 400 saying to start again", func(t *testing.T) {
		r := e.get(t, "/v1/reports?cursor=MTA", e.acme) // base64url of "10"
		mustProblem(t, r, 400, "invalid_request")
		if !strings.Contains(fmt.Sprint(r.Body["detail"]), "primera página") {
			t.Errorf("detail %q does not say to ask for the first page", r.Body["detail"])
		}
	})
	t.Run("list: a bad or unknown parameter is 400 invalid_request naming it", func(t *testing.T) {
		for query, name := range map[string]string{
			"limit=0": "limit", "limit=501": "limit", "limit=ten": "limit", "limit=-1": "limit",
			"received_from=yesterday": "received_from", "received_to=2026-02-30": "received_to",
			"cursor=xyz": "cursor", "cursor=" + url.QueryEscape("MTA="): "cursor",
			"numero_credito=a%2Fb": "numero_credito", "numero_credito=": "numero_credito",
			"credit=CR-1": "credit", "limit=1&limit=2": "limit", "idempotency_key=" + strings.Repeat("k", 256): "idempotency_key",
		} {
			r := e.get(t, "/v1/reports?"+query, e.acme)
			mustProblem(t, r, 400, "invalid_request")
			if !strings.Contains(fmt.Sprint(r.Body["detail"]), name) {
				t.Errorf("%s: detail %q does not name %s", query, r.Body["detail"], name)
			}
		}
	})
	t.Run("lookups past the partner's rate: 429 slow_down with Retry-After, another partner served", func(t *testing.T) {
		in := testkit.MustStart(t, e.store(t), func(c *config.Config) { c.HTTP.LookupRatePerPartner = 2 })
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
	})
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

package e2e

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/domain"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/storetest"
	"github.com/lender/disbursementd/test/testkit"
)

// TestV1ListFieldsSQLite and TestV1ListFieldsMySQL: GET /v1/reports with
// include=fields and as the CSV export (issue 36), through a real
// listener on each store; every exchange is checked against the served
// openapi.yaml when the instance stops.
func TestV1ListFieldsSQLite(t *testing.T) {
	t.Parallel()
	listFieldsRules(t, func(*config.Config) {})
}

func TestV1ListFieldsMySQL(t *testing.T) {
	t.Parallel()
	storetest.ServerDSN(t)
	listFieldsRules(t, testkit.WithMySQL(t))
}

// formulaName is a text value a spreadsheet would run as a formula.
const formulaName = "=HYPERLINK(\"http://x\",\"y\")"

func listFieldsRules(t *testing.T, store func(*config.Config)) {
	in := testkit.MustStart(t, store)
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	in.AddUser(t, testkit.OtherPartner, "900765432", testkit.OtherPassword)
	acme := testkit.V1Token(t, in, testkit.Partner, testkit.Password)
	globex := testkit.V1Token(t, in, testkit.OtherPartner, testkit.OtherPassword)
	today := time.Now().UTC()
	var ids []int64
	for i := range 5 {
		body := fixture.FullV1(today, fmt.Sprintf("CR-EXP-%d", i), nil)
		if i == 3 {
			body["Nombre del Convenio"] = formulaName
		}
		r := testkit.Call(t, http.MethodPost, in.URL+"/v1/reports", testkit.V1Header(acme), testkit.MustJSON(body))
		if r.Status != http.StatusCreated {
			t.Fatalf("%d %s", r.Status, r.Raw)
		}
		ids = append(ids, int64(r.Body["id"].(float64)))
	}
	if r := testkit.Call(t, http.MethodPost, in.URL+"/v1/reports", testkit.V1Header(globex), testkit.MustJSON(fixture.FullV1(today, "CR-EXP-X", nil))); r.Status != http.StatusCreated {
		t.Fatalf("%d %s", r.Status, r.Raw)
	}
	get := func(path, tok string, extra ...string) testkit.Reply {
		h := map[string]string{"Authorization": "Bearer " + tok}
		for i := 0; i+1 < len(extra); i += 2 {
			h[extra[i]] = extra[i+1]
		}
		return testkit.Call(t, http.MethodGet, in.URL+path, h, nil)
	}

	t.Run("include=fields: each receipt with the fields GET /v1/reports/{id} shows, paged by the cursor", func(t *testing.T) {
		var seen []int64
		path := "/v1/reports?include=fields&limit=2"
		for pages := 0; ; pages++ {
			r := get(path, acme)
			if r.Status != http.StatusOK {
				t.Fatalf("%d %s", r.Status, r.Raw)
			}
			var page struct {
				Data []struct {
					ID     int64           `json:"id"`
					Fields json.RawMessage `json:"fields"`
				} `json:"data"`
				Next *string `json:"next_cursor"`
			}
			if err := json.Unmarshal(r.Raw, &page); err != nil {
				t.Fatal(err)
			}
			for _, d := range page.Data {
				one := get(fmt.Sprintf("/v1/reports/%d", d.ID), acme)
				var detail struct {
					Fields json.RawMessage `json:"fields"`
				}
				if err := json.Unmarshal(one.Raw, &detail); err != nil || !bytes.Equal(detail.Fields, d.Fields) || len(d.Fields) < 100 {
					t.Fatalf("report %d: the list's fields\n%s\nGET's\n%s", d.ID, d.Fields, detail.Fields)
				}
				seen = append(seen, d.ID)
			}
			if page.Next == nil {
				break
			}
			path = "/v1/reports?include=fields&limit=2&cursor=" + *page.Next
		}
		if fmt.Sprint(seen) != fmt.Sprint(ids) {
			t.Fatalf("pages gave %v, want acme's %v", seen, ids)
		}
		if r := get("/v1/reports?limit=2", acme); strings.Contains(string(r.Raw), `"fields"`) {
			t.Fatalf("a list without include has fields: %s", r.Raw)
		}
	})

	t.Run("a bad include or a limit over the fields' bound is 400 invalid_request naming it", func(t *testing.T) {
		for query, param := range map[string]string{
			"include=files":           "include",
			"include=fields,decision": "include",
			"include=fields&limit=" + fmt.Sprint(domain.PageFieldsMax+1): "limit",
		} {
			r := get("/v1/reports?"+query, acme)
			mustProblem(t, r, http.StatusBadRequest, "invalid_request")
			if !strings.Contains(r.Body["detail"].(string), param) {
				t.Errorf("%s: %s does not name %s", query, r.Raw, param)
			}
		}
		r := get("/v1/reports?limit="+fmt.Sprint(domain.PageFieldsMax+1), acme, "Accept", "text/csv")
		mustProblem(t, r, http.StatusBadRequest, "invalid_request")
	})

	t.Run("Accept: text/csv: the export, paged by Next-Cursor and Link, money as stored, formulas inert", func(t *testing.T) {
		var rows [][]string
		var header []string
		path := "/v1/reports?limit=2"
		for pages := 0; pages < 10; pages++ {
			r := get(path, acme, "Accept", "text/csv")
			if r.Status != http.StatusOK || r.Header.Get("Content-Type") != "text/csv; charset=utf-8; header=present" {
				t.Fatalf("%d %s %s", r.Status, r.Header.Get("Content-Type"), r.Raw)
			}
			recs, err := csv.NewReader(bytes.NewReader(r.Raw)).ReadAll()
			if err != nil {
				t.Fatalf("not RFC 4180: %v\n%s", err, r.Raw)
			}
			if !bytes.HasSuffix(r.Raw, []byte("\r\n")) || !bytes.HasPrefix(r.Raw, []byte(`"id","status"`)) {
				t.Fatalf("want quoted cells and CRLF: %q", r.Raw)
			}
			header, rows = recs[0], append(rows, recs[1:]...)
			next := r.Header.Get("Next-Cursor")
			if next == "" {
				if r.Header.Get("Link") != "" {
					t.Fatalf("the last page has a Link: %s", r.Header.Get("Link"))
				}
				break
			}
			link := r.Header.Get("Link")
			if !strings.HasPrefix(link, "</v1/reports?") || !strings.HasSuffix(link, `>; rel="next"`) || !strings.Contains(link, "limit=2") {
				t.Fatalf("Link %q", link)
			}
			path = strings.TrimSuffix(strings.TrimPrefix(link, "<"), `>; rel="next"`)
		}
		if len(rows) != len(ids) {
			t.Fatalf("%d rows, want %d", len(rows), len(ids))
		}
		col := func(name string) int {
			i := slices.Index(header, name)
			if i < 0 {
				t.Fatalf("no column %q in %q", name, header)
			}
			return i
		}
		cat := domain.DefaultCatalogue()
		want := fixture.Full(today)
		for i, row := range rows {
			if row[col("id")] != fmt.Sprint(ids[i]) || row[col("status")] != "received" || row[col("Número de Crédito")] != fmt.Sprintf("CR-EXP-%d", i) {
				t.Fatalf("row %d: %q", i, row)
			}
			for _, v := range want {
				f, _ := cat.Lookup(v.Partner)
				if (f.Type == domain.TypeMoney || f.Type == domain.TypeRate) && row[col(f.Partner)] != v.Stored {
					t.Errorf("row %d %s = %q, stored %q", i, f.Partner, row[col(f.Partner)], v.Stored)
				}
			}
		}
		if got := rows[3][col("Nombre del Convenio")]; got != "'"+formulaName {
			t.Fatalf("a formula cell is %q, want it behind a '", got)
		}
	})

	t.Run("an Accept that allows neither JSON nor CSV is 406 not_acceptable; another partner's export has none of acme's", func(t *testing.T) {
		for _, accept := range []string{"text/html", "application/xml, application/json;q=0"} {
			mustProblem(t, get("/v1/reports", acme, "Accept", accept), http.StatusNotAcceptable, "not_acceptable")
		}
		r := get("/v1/reports", globex, "Accept", "text/*")
		if r.Status != http.StatusOK || strings.Contains(string(r.Raw), "CR-EXP-0") || !strings.Contains(string(r.Raw), "CR-EXP-X") {
			t.Fatalf("globex's export: %d %s", r.Status, r.Raw)
		}
	})
}

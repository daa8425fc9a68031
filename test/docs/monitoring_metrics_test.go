package docs

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/lender/disbursementd/config"
	"github.com/lender/disbursementd/test/fixture"
	"github.com/lender/disbursementd/test/testkit"
)

// exported is what a /metrics page holds: each sample name (histograms
// as _bucket, _sum, _count), its label names and the values of each.
type exported map[string]map[string]map[string]bool

var (
	sampleLine = regexp.MustCompile(`^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? \S+$`)
	labelPair  = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"`)
)

func (e exported) add(page string) {
	for _, line := range strings.Split(page, "\n") {
		m := sampleLine.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		if e[m[1]] == nil {
			e[m[1]] = map[string]map[string]bool{}
		}
		for _, l := range labelPair.FindAllStringSubmatch(m[2], -1) {
			if e[m[1]][l[1]] == nil {
				e[m[1]][l[1]] = map[string]bool{}
			}
			e[m[1]][l[1]][l[2]] = true
		}
	}
}

// exportEverySeries starts the service twice (the built-in login on the
// database throttle; an external login that is down) and makes it
// export every series it has: a report stored with a file, a replay,
// refusals, logins ok, refused and throttled, an upstream failure, the
// readiness checks.
func exportEverySeries(t *testing.T) exported {
	in := testkit.MustStart(t, func(c *config.Config) {
		c.Throttle.Backend, c.Throttle.UserFailures = "database", 2
	})
	in.AddUser(t, testkit.Partner, testkit.Nit, testkit.Password)
	tok := in.Token(t, testkit.Partner, testkit.Password)
	body := testkit.MustJSON(fixture.FullBody(time.Now(), "CR-MON-1", fixture.PDF(4096)))
	for range 2 { // stored, then replayed
		if r := in.Report(t, tok, body, "Idempotency-Key", "mon-1"); r.Status != 200 {
			t.Fatalf("report: %d %s", r.Status, r.Raw)
		}
	}
	in.Report(t, "not-a-token", body)
	in.Report(t, tok, []byte(`{"numero_credito": 5}`))
	for range 3 { // wrong, wrong, throttled
		testkit.Call(t, "GET", in.URL+"/api/partner_api.php", testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": "wrong password"}))
	}
	testkit.Call(t, "GET", in.URL+"/readyz", nil, nil)
	out := exported{}
	out.add(testkit.Scrape(t, in.URL+"/metrics"))

	down := testkit.MustStart(t, func(c *config.Config) { c.Login.URL = "http://" + testkit.ClosedAddr(t) + "/auth/login" })
	testkit.Call(t, "GET", down.URL+"/api/partner_api.php", testkit.JSONCT, testkit.MustJSON(map[string]string{"user": testkit.Partner, "password": testkit.Password}))
	out.add(testkit.Scrape(t, down.URL+"/metrics"))
	return out
}

var (
	// A metric of the service or of Go's and the process' collectors, or a
	// recording rule (a colon); label names never start so.
	metricName = regexp.MustCompile(`\b((?:disbursementd_|go_|process_)[a-z0-9_]+|up|[a-z_]+:[a-z_:]+)\b\s*(\{[^}]*\})?`)
	grouping   = regexp.MustCompile(`\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)`)
	matcher    = regexp.MustCompile(`([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=)\s*"([^"]*)"`)
)

// targetLabels are set by Prometheus on every series it scrapes.
var targetLabels = map[string]bool{"job": true, "instance": true}

// checkExpr names what expr selects that the service does not export: a
// metric, a label of it, or a label value no series has.
func checkExpr(expr string, have exported, records map[string]bool) []string {
	var bad []string
	expr = strings.ReplaceAll(expr, "$instance", ".*")
	for _, m := range metricName.FindAllStringSubmatch(grouping.ReplaceAllString(expr, ""), -1) {
		name, labels := m[1], have[m[1]]
		switch {
		case strings.Contains(name, ":"):
			if !records[name] {
				bad = append(bad, name+" (no recording rule makes it)")
			}
			continue
		case name == "up":
			continue // Prometheus' own
		case labels == nil:
			bad = append(bad, name)
			continue
		}
		for _, mm := range matcher.FindAllStringSubmatch(m[2], -1) {
			label, op, value := mm[1], mm[2], mm[3]
			values, ok := labels[label]
			switch {
			case targetLabels[label]:
			case !ok:
				bad = append(bad, name+" has no label "+label)
			case op == "=" && !values[value]:
				bad = append(bad, name+"{"+label+`="`+value+`"} (no such series)`)
			case op == "=~" && !anyMatch(value, values):
				bad = append(bad, name+"{"+label+`=~"`+value+`"} (matches no series)`)
			}
		}
	}
	return bad
}

func anyMatch(pattern string, values map[string]bool) bool {
	re, err := regexp.Compile("^(?:" + pattern + ")$")
	if err != nil {
		return false
	}
	for v := range values {
		if re.MatchString(v) {
			return true
		}
	}
	return false
}

// dashboardExprs returns every query of the dashboard, by panel title.
func dashboardExprs(t *testing.T) map[string][]string {
	var d struct {
		Panels []struct {
			Title   string
			Targets []struct{ Expr string }
		}
		Templating struct {
			List []struct {
				Name  string
				Query any
			}
		}
	}
	if err := json.Unmarshal([]byte(repoFile(t, "deploy/monitoring/dashboard.json")), &d); err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, p := range d.Panels {
		for _, tg := range p.Targets {
			out["panel "+p.Title] = append(out["panel "+p.Title], tg.Expr)
		}
	}
	for _, v := range d.Templating.List {
		if q, ok := v.Query.(map[string]any); ok {
			out["variable "+v.Name] = append(out["variable "+v.Name], q["query"].(string))
		}
	}
	return out
}

// TestMonitoringNamesExportedMetrics: every metric, label and label value
// that a rule or a dashboard panel selects is one the service exports
// (job and instance aside: Prometheus adds them), so that no alert stays
// silent and no panel stays empty for a misspelled name.
func TestMonitoringNamesExportedMetrics(t *testing.T) {
	t.Parallel()
	have := exportEverySeries(t)
	records := map[string]bool{}
	for _, g := range ruleGroups(t) {
		for _, r := range g.Rules {
			if r.Record != "" {
				records[r.Record] = true
			}
		}
	}
	exprs := dashboardExprs(t)
	for _, g := range ruleGroups(t) {
		for _, r := range g.Rules {
			exprs["rule "+r.Alert+r.Record] = append(exprs["rule "+r.Alert+r.Record], r.Expr)
		}
	}
	n := 0
	for where, list := range exprs {
		for _, e := range list {
			n++
			if bad := checkExpr(e, have, records); len(bad) > 0 {
				t.Errorf("%s selects what the service does not export: %s\n  %s", where, strings.Join(bad, "; "), e)
			}
		}
	}
	if n < 30 {
		t.Fatalf("only %d expressions found: the check would prove little", n)
	}
	// The check itself: a misspelled metric, label or value is caught.
	for _, e := range []string{`rate(disbursementd_store_error_total[5m])`, `disbursementd_reports_refused_total{code="invalid_token"}`,
		`disbursementd_token_exchanges_total{outcome="throttled"}`, `disbursementd:no_such_rule`} {
		if len(checkExpr(e, have, records)) == 0 {
			t.Errorf("checkExpr misses what is wrong in %s", e)
		}
	}
}
